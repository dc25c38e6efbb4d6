// Document writes: one unit of work per document (record, index entries and oplog entry in one
// WiredTiger transaction), locks per the node's policy, write-conflict retries with MongoDB's
// backoff, virtual cost paid inside the transaction with the locks held.
#include <wiredtiger.h>

#include <cassert>

#include "engine/bson.h"
#include "engine/engine.h"
#include "sim/planted.h"
#include "engine/index_keys.h"
#include "engine/key_string.h"
#include "engine/padded_store.h"
#include "engine/update_ops.h"

namespace wtsim::engine {
namespace {

// The record at `rkey`, decoded, and its stored size in bytes.
// With `fields`, only those top-level fields are decoded (see record_view).
std::optional<Document> read_current(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                                     int* ret, size_t* stored_bytes = nullptr,
                                     const std::vector<std::string>* fields = nullptr) {
  WT_CURSOR* c = op.cursor(coll.table, ret);
  if (c == nullptr) return std::nullopt;
  WT_ITEM key = item_of(rkey);
  c->set_key(c, &key);
  *ret = c->search(c);
  if (*ret == WT_NOTFOUND) {
    *ret = 0;
    return std::nullopt;
  }
  if (*ret != 0) return std::nullopt;
  WT_ITEM value;
  *ret = c->get_value(c, &value);
  if (*ret != 0) return std::nullopt;
  if (stored_bytes != nullptr) *stored_bytes = value.size;
  return record_view(coll, value.data, value.size, fields);
}

std::string_view view_of(const std::vector<uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

const CollectionSpec* DocumentEngine::collection_for_write(OperationContext& op, const std::string& ns, WriteResult* result) {
  if (catalog_.find(ns) != nullptr) return catalog_.find(ns);
  const Status created = create_collection(op, ns);  // implicit, as MongoDB
  if (created.code != ErrorCode::kOk) result->errors.push_back({0, created.code, "cannot create " + ns});
  result->wt_code = created.wt_code;
  assert(created.ok() == (catalog_.find(ns) != nullptr));
  return created.ok() ? catalog_.find(ns) : nullptr;
}

int DocumentEngine::apply_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                                 const Document* current, const Document* next, const RecordBytes& bytes,
                                 std::string* new_rkey, int64_t* size_delta) {
  *new_rkey = rkey;
  const std::vector<uint8_t>& bson = bytes.next;
  if (coll.padded) {  // sizes count netLength: the allocated record, padding included
    MmapAllocator& alloc = allocators_[coll.ns];
    constexpr uint32_t kHeader = MmapAllocator::kRecordHeaderBytes;
    uint32_t old_bytes = 0, new_bytes = 0;
    bool moved = false;
    int ret = 0;
    if (!next) {
      ret = padded::remove(op, coll, alloc, rkey, &old_bytes);
      new_rkey->clear();
    } else if (!current) {
      ret = padded::insert(op, coll, alloc, bson, new_rkey, &new_bytes);
    } else {
      ret = padded::update(op, coll, alloc, rkey, bson, static_cast<int>(coll.indexes.size()), new_rkey, &old_bytes,
                           &new_bytes, &moved);
    }
    *size_delta = (new_bytes > 0 ? int64_t{new_bytes} - kHeader : 0) - (old_bytes > 0 ? int64_t{old_bytes} - kHeader : 0);
    return ret;
  }
  *size_delta = static_cast<int64_t>(bson.size()) - static_cast<int64_t>(current ? bytes.current_stored : 0);
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  WT_ITEM key = item_of(rkey);
  c->set_key(c, &key);
  if (!next) return c->remove(c);
  WT_ITEM value{};
  value.data = bson.data();
  value.size = bson.size();
  c->set_value(c, &value);
  return c->insert(c);
}

int DocumentEngine::apply_indexes(OperationContext& op, const CollectionSpec& coll, const std::string& old_rkey,
                                  const std::string& new_rkey, const Document* before, const Document* after,
                                  WriteError* error, size_t* keys_written) {
  // A record that moved gets every index entry rewritten (MMAPv1); otherwise only changed keys.
  const bool moved = before && after && old_rkey != new_rkey;
  for (const IndexSpec& spec : coll.indexes) {
    if (moved && &spec == &coll.indexes.back() && planted::active(planted::Bug::kMoveForgetsIndex)) break;
    const std::set<std::string> old_keys = before ? index_keys(spec, *before) : std::set<std::string>{};
    const std::set<std::string> new_keys = after ? index_keys(spec, *after) : std::set<std::string>{};
    int ret = 0;
    WT_CURSOR* c = op.cursor(spec.table, &ret);
    if (c == nullptr) return ret;
    for (const std::string& k : old_keys) {
      if (!moved && new_keys.count(k) != 0) continue;
      if (keys_written != nullptr) ++*keys_written;
      const std::string entry = index_entry_key(spec, k, old_rkey);
      WT_ITEM key = item_of(entry);
      c->set_key(c, &key);
      if ((ret = c->remove(c)) != 0 && ret != WT_NOTFOUND) return ret;
    }
    for (const std::string& k : new_keys) {
      if (!moved && old_keys.count(k) != 0) continue;
      if (keys_written != nullptr) ++*keys_written;
      const std::string entry = index_entry_key(spec, k, new_rkey);
      WT_ITEM key = item_of(entry);
      c->set_key(c, &key);
      if (spec.unique && (ret = c->search(c)) != WT_NOTFOUND) {
        if (ret != 0) return ret;
        error->code = ErrorCode::kDuplicateKey;
        error->message = "E11000 duplicate key error collection: " + coll.ns + " index: " + spec.name;
        return 0;
      }
      c->set_key(c, &key);
      WT_ITEM value = item_of(new_rkey);
      c->set_value(c, &value);
      if ((ret = c->insert(c)) != 0) return ret;
    }
  }
  return 0;
}

// The entry {ns, o, op, ts} (nlohmann's key order), built around the document's own bytes.
int DocumentEngine::write_oplog(OperationContext& op, const CollectionSpec& coll, const Document* id,
                                const std::vector<uint8_t>* after_bson) {
  assert(after_bson != nullptr || id != nullptr);
  if (!config_.oplog) return 0;
  if (op.ttl_tag && planted::active(planted::Bug::kTtlDeleteSkipsOplog)) return 0;
  int ret = 0;
  WT_CURSOR* c = op.cursor(kOplogUri, &ret);
  if (c == nullptr) return ret;
  const int64_t ts = static_cast<int64_t>(oplog_next_ts_++);
  std::vector<uint8_t> deleted;
  if (after_bson == nullptr) deleted = to_bson(Document{{"_id", *id}});
  const std::vector<uint8_t>& o = after_bson != nullptr ? *after_bson : deleted;
  BsonBuilder entry;
  entry.add_string("ns", coll.ns);
  entry.add_document("o", o.data(), o.size());
  entry.add_string("op", after_bson != nullptr ? "u" : "d");
  entry.add_int("ts", ts);
  const std::vector<uint8_t> bson = std::move(entry).finish();
  WT_ITEM value{};
  value.data = bson.data();
  value.size = bson.size();
  c->set_key(c, ts);
  c->set_value(c, &value);
  return c->insert(c);
}

void DocumentEngine::pay_write_cost(size_t bytes, size_t documents) {
  const CostModel& cost = config_.cost;
  env_.cpu->use(cost.cpu_per_op_ns * static_cast<sim::Nanos>(documents) + cost.cpu_per_byte_ns * static_cast<sim::Nanos>(bytes));
}

void DocumentEngine::backoff_after_conflict(int attempt) {
  // MongoDB's WriteConflictException::logAndBackoff.
  const sim::Nanos sleep_ns = attempt < 4 ? 0 : attempt < 10 ? sim::kNsPerMs : attempt < 100 ? 5 * sim::kNsPerMs : 10 * sim::kNsPerMs;
  if (sleep_ns > 0) {
    env_.sim->sleep_for(sleep_ns);
  } else {
    env_.sim->yield();
  }
}

int DocumentEngine::write_attempt(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                                  const Mutation& mutate, bool durable, std::vector<uint64_t>& tickets,
                                  WriteError* error, bool* changed, const std::vector<std::string>* view_fields) {
  HierarchicalLock lock(locks_, coll.db(), coll.name(), LockMode::kIX, policy_for(coll));
  int ret = op.begin();
  if (ret != 0) return ret;
  MmapAllocator* alloc = coll.padded ? &allocators_[coll.ns] : nullptr;
  if (alloc != nullptr) alloc->begin();
  // An empty key: a new document of a padded collection (its _id index checks uniqueness).
  RecordBytes bytes;
  std::optional<Document> current = rkey.empty() ? std::nullopt : read_current(op, coll, rkey, &ret, &bytes.current_stored, view_fields);
  if (planted::active(planted::Bug::kRetryUsesStaleDocument)) reuse_first_read(&current);
  std::optional<Document> next;
  int64_t inc_total = 0, size_delta = 0;
  size_t keys_written = 0;
  std::string new_rkey = rkey;
  // WiredTiger may roll any update back (cache pressure, a conflict it sees first): legal, retried.
  if (ret == 0 && !coll.padded && sim::buggify(env_.buggify, "spurious_write_conflict")) ret = WT_ROLLBACK;
  if (ret == 0) ret = mutate(current, &next, &inc_total, error);
  *changed = ret == 0 && error->code == ErrorCode::kOk && current != next;
  if (ret == 0 && *changed && next) bytes.next = to_bson(*next);
  const Document* current_doc = current ? &*current : nullptr;
  const Document* next_doc = next ? &*next : nullptr;
  if (ret == 0 && *changed) ret = apply_record(op, coll, rkey, current_doc, next_doc, bytes, &new_rkey, &size_delta);
  moving_ = current && next && new_rkey != rkey;
  if (ret == 0 && *changed) ret = apply_indexes(op, coll, rkey, new_rkey, current_doc, next_doc, error, &keys_written);
  if (ret == 0 && *changed && error->code == ErrorCode::kOk) ret = write_oplog(op, coll, current ? &current->at("_id") : nullptr, next ? &bytes.next : nullptr);
  const bool moved = current && next && new_rkey != rkey;
  if (ret == 0 && *changed && error->code == ErrorCode::kOk) {
    pay_write_cost(next ? bytes.next.size() : rkey.size(), 1);
    env_.cpu->use(config_.cost.cpu_per_key_ns * static_cast<sim::Nanos>(keys_written) + (moved ? config_.cost.move_ns : 0));
  }
  if (ret != 0 || error->code != ErrorCode::kOk || !*changed) {
    op.rollback();
    if (alloc != nullptr) alloc->rollback();
    moving_ = false;
    return ret;
  }
  DocWrite write{coll.ns, &(next ? *next : *current).at("_id"), next ? &*next : nullptr,
                 next ? view_of(bytes.next) : std::string_view(), inc_total, current ? &*current : nullptr, {}, 0};
  if (op.ttl_tag) {
    write.ttl_field = op.ttl_tag->field;
    write.ttl_expire_after_s = op.ttl_tag->expire_after_s;
  }
  const uint64_t ticket = env_.observer != nullptr ? env_.observer->before_commit({write}, durable) : 0;
  ret = op.commit();
  if (alloc != nullptr) ret == 0 ? alloc->commit() : alloc->rollback();
  if (env_.observer != nullptr) env_.observer->after_commit(ticket, ret);
  moving_ = false;
  if (ret != 0) return ret;
  if (moved) ++metrics_.record_moves;
  auto& counts = counts_[coll.ns];
  counts.count += (next ? 1 : 0) - (current ? 1 : 0);
  counts.data_bytes += size_delta;
  if (durable) tickets.push_back(ticket);
  return 0;
}

// Planted bug: a retry keeps the document its first attempt read (the self-test build only).
void DocumentEngine::reuse_first_read(std::optional<Document>* current) {
  if (planted_first_read_) {
    *current = *planted_first_read_;
  } else {
    planted_first_read_ = *current;
  }
}

int DocumentEngine::write_one(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                              const Mutation& mutate, bool durable, std::vector<uint64_t>& tickets, WriteError* error,
                              bool* changed, const std::vector<std::string>* view_fields) {
  planted_first_read_.reset();
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    *error = WriteError{};
    const int ret = write_attempt(op, coll, rkey, mutate, durable, tickets, error, changed, view_fields);
    if (ret != WT_ROLLBACK) return ret;
    ++metrics_.write_conflicts;  // WriteConflictException: abandon the snapshot and retry
    backoff_after_conflict(attempt);
  }
  return WT_ROLLBACK;
}

int DocumentEngine::finish_durable(OperationContext& op, bool durable, const std::vector<uint64_t>& tickets) {
  if (!durable || tickets.empty()) return 0;
  const int ret = op.flush_log();  // its sync pays the disk time inside the call
  if (env_.observer != nullptr) env_.observer->after_flush(tickets, ret);
  return ret;
}

int DocumentEngine::insert_group_attempt(OperationContext& op, const CollectionSpec& coll,
                                         const std::vector<Document*>& group, bool durable,
                                         std::vector<uint64_t>& tickets, bool* fallback) {
  assert(!coll.padded && "padded collections insert one document at a time");
  HierarchicalLock lock(locks_, coll.db(), coll.name(), LockMode::kIX, policy_for(coll));
  int ret = op.begin();
  size_t bytes = 0;
  std::vector<DocWrite> writes;
  std::vector<RecordBytes> encoded(group.size());  // sized once: the writes view into it
  for (size_t i = 0; ret == 0 && i < group.size() && !*fallback; ++i) {
    const Document& doc = *group[i];
    const std::string rkey = record_key(doc["_id"]);
    encoded[i].next = to_bson(doc);
    WriteError error;
    if (read_current(op, coll, rkey, &ret) || ret != 0) {
      *fallback = ret == 0;  // a duplicate _id: one at a time reports it precisely
      break;
    }
    std::string new_rkey;
    int64_t size_delta = 0;
    if ((ret = apply_record(op, coll, rkey, nullptr, &doc, encoded[i], &new_rkey, &size_delta)) == 0) {
      ret = apply_indexes(op, coll, rkey, rkey, nullptr, &doc, &error);
    }
    if (ret == 0 && error.code != ErrorCode::kOk) *fallback = true;
    if (ret == 0 && !*fallback) ret = write_oplog(op, coll, nullptr, &encoded[i].next);
    bytes += encoded[i].next.size();
    writes.push_back(DocWrite{coll.ns, &doc.at("_id"), &doc, view_of(encoded[i].next), 0, nullptr, {}, 0});
  }
  if (ret == 0 && !*fallback) pay_write_cost(bytes, group.size());
  if (ret != 0 || *fallback) {
    op.rollback();
    return ret;
  }
  const uint64_t ticket = env_.observer != nullptr ? env_.observer->before_commit(writes, durable) : 0;
  ret = op.commit();
  if (env_.observer != nullptr) env_.observer->after_commit(ticket, ret);
  if (ret != 0) return ret;
  counts_[coll.ns].count += static_cast<int64_t>(group.size());
  counts_[coll.ns].data_bytes += static_cast<int64_t>(bytes);
  if (durable) tickets.push_back(ticket);
  return 0;
}

int DocumentEngine::insert_group(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                                 bool durable, std::vector<uint64_t>& tickets, bool* fallback) {
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    const int ret = insert_group_attempt(op, coll, group, durable, tickets, fallback);
    if (ret != WT_ROLLBACK) return ret;
    ++metrics_.write_conflicts;
    backoff_after_conflict(attempt);
  }
  return WT_ROLLBACK;
}

int DocumentEngine::insert_one(OperationContext& op, const CollectionSpec& coll, Document& doc, bool durable,
                               std::vector<uint64_t>& tickets, WriteError* error) {
  const Mutation insert = [&doc](const std::optional<Document>& current, std::optional<Document>* next, int64_t*,
                                 WriteError* err) {
    if (current) {
      err->code = ErrorCode::kDuplicateKey;
      err->message = "E11000 duplicate key error index: _id_ dup key: " + doc["_id"].dump();
      return 0;
    }
    *next = doc;
    return 0;
  };
  bool changed = false;
  const std::string rkey = coll.padded ? std::string() : record_key(doc["_id"]);
  return write_one(op, coll, rkey, insert, durable, tickets, error, &changed);
}

WriteResult DocumentEngine::insert_many(OperationContext& op, const std::string& ns, std::vector<Document> docs,
                                        WriteConcern wc, bool ordered) {
  WriteResult result;
  const CollectionSpec* coll = collection_for_write(op, ns, &result);
  if (coll == nullptr) return result;
  std::vector<uint64_t> tickets;
  for (size_t start = 0; start < docs.size() && result.wt_code == 0;) {
    // Up to kInsertGroupMax well-formed documents in one unit of work, as MongoDB 3.6+ does.
    std::vector<Document*> group;
    size_t end = start;
    const size_t group_max = sim::buggify(env_.buggify, "insert_group_of_two") ? 2 : kInsertGroupMax;
    for (; end < docs.size() && group.size() < group_max && docs[end].is_object(); ++end) {
      if (!docs[end].contains("_id")) docs[end]["_id"] = "oid" + std::to_string(next_object_id_++);
      group.push_back(&docs[end]);
    }
    bool fallback = group.size() < 2 || coll->padded;  // MMAPv1 inserts one at a time
    if (!fallback) result.wt_code = insert_group(op, *coll, group, wc.durable, tickets, &fallback);
    if (result.wt_code != 0) break;
    if (!fallback) {
      metrics_.opcounters.insert += group.size();
      metrics_.document.inserted += group.size();
      result.n += group.size();
      start = end;
      continue;
    }
    // One at a time: errors are reported per document; ordered stops at the first.
    const size_t stop = std::max(end, start + 1);
    bool stopped = false;
    for (size_t i = start; i < stop && !stopped; ++i) {
      ++metrics_.opcounters.insert;
      WriteError error;
      if (!docs[i].is_object()) {
        error = {i, ErrorCode::kBadValue, "a document must be an object"};
      } else if ((result.wt_code = insert_one(op, *coll, docs[i], wc.durable, tickets, &error)) != 0) {
        break;
      }
      if (error.code != ErrorCode::kOk) {
        error.index = i;
        result.errors.push_back(error);
        stopped = ordered;
        continue;
      }
      ++result.n;
      ++metrics_.document.inserted;
    }
    if (stopped) break;
    start = stop;
  }
  const int flushed = finish_durable(op, wc.durable, tickets);
  if (result.wt_code == 0) result.wt_code = flushed;
  return result;
}

WriteResult DocumentEngine::update(OperationContext& op, const std::string& ns, const Document& filter,
                                   const Document& update, bool upsert, bool multi, WriteConcern wc) {
  WriteResult result;
  ++metrics_.opcounters.update;
  const CollectionSpec* coll = collection_for_write(op, ns, &result);
  if (coll == nullptr) return result;
  std::vector<uint64_t> tickets;
  std::vector<std::string> keys = target_keys(op, *coll, filter, !multi, &result.wt_code);
  if (result.wt_code != 0) return result;
  const Mutation modify = [&](const std::optional<Document>& current, std::optional<Document>* next, int64_t* inc,
                              WriteError* error) {
    if (!current || !matches(*current, filter)) return 0;  // gone or changed since the plan saw it
    Document doc = *current;
    error->message = apply_update(doc, update, inc);
    if (!error->message.empty()) error->code = ErrorCode::kBadValue;
    *next = doc;
    return 0;
  };
  for (const std::string& rkey : keys) {
    WriteError error;
    bool changed = false;
    result.wt_code = write_one(op, *coll, rkey, modify, wc.durable, tickets, &error, &changed);
    if (result.wt_code != 0) break;
    if (error.code != ErrorCode::kOk) {
      result.errors.push_back(error);
      break;
    }
    ++result.n;
    ++metrics_.document.updated;
    if (changed) ++result.modified;
  }
  if (keys.empty() && upsert && result.wt_code == 0) {
    Document doc = upsert_seed(filter);
    int64_t inc = 0;
    const std::string message = apply_update(doc, update, &inc);
    if (!message.empty()) {
      result.errors.push_back({0, ErrorCode::kBadValue, message});
    } else {
      if (!doc.contains("_id")) doc["_id"] = "oid" + std::to_string(next_object_id_++);
      const Mutation insert = [&](const std::optional<Document>& current, std::optional<Document>* next,
                                  int64_t* inc_total, WriteError* error) {
        if (current) {
          error->code = ErrorCode::kDuplicateKey;
          error->message = "E11000 duplicate key error (upsert raced an insert)";
          return 0;
        }
        *next = doc;
        *inc_total = inc;
        return 0;
      };
      WriteError error;
      bool changed = false;
      const std::string rkey = coll->padded ? std::string() : record_key(doc["_id"]);
      result.wt_code = write_one(op, *coll, rkey, insert, wc.durable, tickets, &error, &changed);
      if (error.code != ErrorCode::kOk) result.errors.push_back(error);
      if (result.wt_code == 0 && error.code == ErrorCode::kOk) result.upserted_ids.push_back(doc["_id"]);
    }
  }
  const int flushed = finish_durable(op, wc.durable, tickets);
  if (result.wt_code == 0) result.wt_code = flushed;
  return result;
}

WriteResult DocumentEngine::remove(OperationContext& op, const std::string& ns, const Document& filter, bool just_one,
                                   WriteConcern wc, bool count_as_user_op) {
  WriteResult result;
  if (count_as_user_op) ++metrics_.opcounters.remove;
  const CollectionSpec* coll = catalog_.find(ns);
  if (coll == nullptr) return result;
  std::vector<uint64_t> tickets;
  std::vector<std::string> keys = target_keys(op, *coll, filter, just_one, &result.wt_code);
  if (result.wt_code != 0) return result;
  const Mutation erase = [&](const std::optional<Document>& current, std::optional<Document>* next, int64_t*,
                             WriteError*) {
    if (current && !matches(*current, filter)) *next = current;  // changed since the plan saw it
    return 0;
  };
  for (const std::string& rkey : keys) {
    WriteError error;
    bool changed = false;
    result.wt_code = write_one(op, *coll, rkey, erase, wc.durable, tickets, &error, &changed);
    if (result.wt_code != 0) break;
    if (!changed) continue;
    ++result.n;
    if (count_as_user_op) ++metrics_.document.deleted;
  }
  const int flushed = finish_durable(op, wc.durable, tickets);
  if (result.wt_code == 0) result.wt_code = flushed;
  return result;
}

}  // namespace wtsim::engine
