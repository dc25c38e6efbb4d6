#include "engine/write_unit.h"

#include <wiredtiger.h>

#include <cassert>

#include "engine/bson.h"
#include "engine/index_keys.h"
#include "engine/key_string.h"
#include "engine/padded_store.h"
#include "sim/planted.h"

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

// Sizes count netLength: the allocated record, padding included.
int WriteUnit::apply_padded_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                                   const RecordChange& change, RecordPlacement* out) {
  MmapAllocator& alloc = state_.allocator(coll);
  constexpr uint32_t kHeader = MmapAllocator::kRecordHeaderBytes;
  uint32_t old_bytes = 0, new_bytes = 0;
  bool moved = false;
  int ret = 0;
  if (change.next == nullptr) {
    ret = padded::remove(op, coll, alloc, rkey, &old_bytes);
    out->rkey.clear();
  } else if (change.current == nullptr) {
    ret = padded::insert(op, coll, alloc, change.bytes.next, &out->rkey, &new_bytes);
  } else {
    ret = padded::update(op, coll, alloc, rkey, change.bytes.next, static_cast<int>(coll.indexes.size()), &out->rkey,
                         &old_bytes, &new_bytes, &moved);
  }
  assert(ret != 0 || moved == (out->rkey != rkey && change.current != nullptr && change.next != nullptr));
  out->size_delta = (new_bytes > 0 ? int64_t{new_bytes} - kHeader : 0) - (old_bytes > 0 ? int64_t{old_bytes} - kHeader : 0);
  return ret;
}

int WriteUnit::apply_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                            const RecordChange& change, RecordPlacement* out) {
  assert(change.current != nullptr || change.next != nullptr);
  out->rkey = rkey;
  if (coll.padded) return apply_padded_record(op, coll, rkey, change, out);
  assert(!rkey.empty() || (change.current == nullptr && !coll.clustered));
  if (rkey.empty()) out->rkey = state_.next_record_key(coll);  // a new document
  const std::vector<uint8_t>& bson = change.bytes.next;
  out->size_delta = static_cast<int64_t>(bson.size()) - static_cast<int64_t>(change.current ? change.bytes.current_stored : 0);
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  WT_ITEM key = item_of(out->rkey);
  c->set_key(c, &key);
  if (change.next == nullptr) return c->remove(c);
  WT_ITEM value{};
  value.data = bson.data();
  value.size = bson.size();
  c->set_value(c, &value);
  return c->insert(c);
}

int WriteUnit::apply_indexes(OperationContext& op, const CollectionSpec& coll, const IndexChange& change,
                             WriteError* error, size_t* keys_written) {
  assert(error->code == ErrorCode::kOk);
  // A record that moved gets every index entry rewritten (MMAPv1); otherwise only changed keys.
  const bool moved = change.before && change.after && change.old_rkey != change.new_rkey;
  for (const IndexSpec& spec : coll.indexes) {
    if (moved && &spec == &coll.indexes.back() && planted::active(planted::Bug::kMoveForgetsIndex)) break;
    const std::set<std::string> old_keys = change.before ? index_keys(spec, *change.before) : std::set<std::string>{};
    const std::set<std::string> new_keys = change.after ? index_keys(spec, *change.after) : std::set<std::string>{};
    int ret = 0;
    WT_CURSOR* c = op.cursor(spec.table, &ret);
    if (c == nullptr) return ret;
    for (const std::string& k : old_keys) {
      if (!moved && new_keys.count(k) != 0) continue;
      if (keys_written != nullptr) ++*keys_written;
      const std::string entry = index_entry_key(spec, k, change.old_rkey);
      WT_ITEM key = item_of(entry);
      c->set_key(c, &key);
      if ((ret = c->remove(c)) != 0 && ret != WT_NOTFOUND) return ret;
      if (ret == 0) op.index_edits.push_back({spec.table, entry, /*removed=*/true});
    }
    for (const std::string& k : new_keys) {
      if (!moved && old_keys.count(k) != 0) continue;
      if (keys_written != nullptr) ++*keys_written;
      const std::string entry = index_entry_key(spec, k, change.new_rkey);
      WT_ITEM key = item_of(entry);
      c->set_key(c, &key);
      if (spec.unique && (ret = c->search(c)) != WT_NOTFOUND) {
        if (ret != 0) return ret;
        error->code = ErrorCode::kDuplicateKey;
        error->message = "E11000 duplicate key error collection: " + coll.ns + " index: " + spec.name;
        return 0;
      }
      c->set_key(c, &key);
      WT_ITEM value = item_of(change.new_rkey);
      c->set_value(c, &value);
      if ((ret = c->insert(c)) != 0) return ret;
      op.index_edits.push_back({spec.table, entry, /*removed=*/false});
    }
  }
  return 0;
}

void WriteUnit::pay_write_cost(size_t bytes, size_t documents) {
  const CostModel& cost = state_.config.cost;
  state_.env.cpu->use(cost.cpu_per_op_ns * static_cast<sim::Nanos>(documents) + cost.cpu_per_byte_ns * static_cast<sim::Nanos>(bytes));
}

void WriteUnit::backoff_after_conflict(int attempt) {
  assert(attempt >= 0 && attempt < kMaxConflictRetries);
  // MongoDB's WriteConflictException::logAndBackoff.
  const sim::Nanos sleep_ns = attempt < 4 ? 0 : attempt < 10 ? sim::kNsPerMs : attempt < 100 ? 5 * sim::kNsPerMs : 10 * sim::kNsPerMs;
  if (sleep_ns > 0) {
    state_.env.sim->sleep_for(sleep_ns);
  } else {
    state_.env.sim->yield();
  }
}

int WriteUnit::stage(OperationContext& op, const WriteTarget& target, const Mutation& mutate, Attempt* a,
                     WriteOutcome* out) {
  const CollectionSpec& coll = target.coll;
  int ret = 0;
  if (!target.rkey.empty()) a->current = read_current(op, coll, target.rkey, &ret, &a->bytes.current_stored, target.view_fields);
  if (planted::active(planted::Bug::kRetryUsesStaleDocument)) reuse_first_read(&a->current);
  // WiredTiger may roll any update back (cache pressure, a conflict it sees first): legal, retried.
  if (ret == 0 && !coll.padded && sim::buggify(state_.env.buggify, "spurious_write_conflict")) ret = WT_ROLLBACK;
  if (ret == 0) ret = mutate(a->current, &a->next, &out->error);
  out->changed = ret == 0 && out->error.code == ErrorCode::kOk && a->current != a->next;
  if (!out->changed) return ret;
  if (a->next) a->bytes.next = to_bson(*a->next);
  ret = apply_record(op, coll, target.rkey, {a->current_doc(), a->next_doc(), a->bytes}, &a->placement);
  if (a->moved(target.rkey)) a->mark_moving(moves_in_flight_);
  if (ret == 0) {
    const IndexChange change{target.rkey, a->placement.rkey, a->current_doc(), a->next_doc()};
    ret = apply_indexes(op, coll, change, &out->error, &a->keys_written);
  }
  if (ret != 0 || out->error.code != ErrorCode::kOk) return ret;
  ret = oplog_.append(op, coll, a->current ? &a->current->at("_id") : nullptr, a->next ? &a->bytes.next : nullptr);
  // A padded (MMAPv1) capped collection is not trimmed: its natural order is not insertion order here.
  if (ret == 0 && !a->current && a->next && coll.capped_max_docs > 0 && !coll.padded) ret = trim_capped(op, coll, a->placement.rkey, &a->trimmed);
  if (ret != 0) return ret;
  pay_write_cost(a->next ? a->bytes.next.size() : target.rkey.size(), 1 + a->trimmed.size());
  const CostModel& cost = state_.config.cost;
  state_.env.cpu->use(cost.cpu_per_key_ns * static_cast<sim::Nanos>(a->keys_written) + (a->moved(target.rkey) ? cost.move_ns : 0));
  return 0;
}

int WriteUnit::commit_attempt(OperationContext& op, const WriteTarget& target, Attempt& a, CommitTickets& tickets) {
  const CollectionSpec& coll = target.coll;
  const Document& image = a.next ? *a.next : *a.current;
  DocWrite write{.ns = coll.ns,
                 .id = &image.at("_id"),
                 .post_image = a.next_doc(),
                 .post_bson = a.next ? view_of(a.bytes.next) : std::string_view(),
                 .pre_image = a.current_doc()};
  if (op.ttl_tag) {
    write.ttl_field = op.ttl_tag->field;
    write.ttl_expire_after_s = op.ttl_tag->expire_after_s;
    write.ttl_index = op.ttl_tag->index;
    write.ttl_bound_ms = op.ttl_tag->bound_ms;
  }
  std::vector<DocWrite> writes = {write};
  for (const Trimmed& t : a.trimmed) writes.push_back(DocWrite{.ns = coll.ns, .id = &t.doc.at("_id"), .pre_image = &t.doc});
  CommitObserver* observer = state_.env.observer;
  MmapAllocator* alloc = coll.padded ? &state_.allocator(coll) : nullptr;
  const uint64_t ticket = observer != nullptr ? observer->before_commit(writes, tickets.durable) : 0;
  int ret = op.commit();
  if (alloc != nullptr) ret == 0 ? alloc->commit() : alloc->rollback();
  if (observer != nullptr) observer->after_commit(ticket, ret);
  if (ret != 0) return ret;
  state_.index_edits_committed(op);
  if (a.moved(target.rkey)) ++state_.metrics.record_moves;
  CollectionCounts& counts = state_.counts[coll.ns];
  counts.count += (a.next ? 1 : 0) - (a.current ? 1 : 0) - static_cast<int64_t>(a.trimmed.size());
  counts.data_bytes += a.placement.size_delta;
  for (const Trimmed& t : a.trimmed) counts.data_bytes -= static_cast<int64_t>(t.stored_bytes);
  if (tickets.durable) tickets.ids.push_back(ticket);
  return 0;
}

int WriteUnit::trim_capped(OperationContext& op, const CollectionSpec& coll, const std::string& inserted,
                           std::vector<Trimmed>* out) {
  assert(out->empty() && !coll.padded && !coll.clustered && "natural order is insertion order");
  const int64_t over = state_.counts[coll.ns].count + 1 - static_cast<int64_t>(coll.capped_max_docs);
  if (over <= 0) return 0;
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr || (ret = c->reset(c)) != 0) return ret;
  while (static_cast<int64_t>(out->size()) < over && (ret = c->next(c)) == 0) {
    WT_ITEM key, value;
    c->get_key(c, &key);
    c->get_value(c, &value);
    std::string rkey = string_of(key);
    if (rkey >= inserted) break;  // never the new document, nor one inserted after it
    out->push_back({std::move(rkey), record_document(coll, value.data, value.size), value.size});
  }
  if (ret != 0 && ret != WT_NOTFOUND) return ret;
  for (const Trimmed& t : *out) {
    WT_ITEM key = item_of(t.rkey);
    c->set_key(c, &key);
    if ((ret = c->remove(c)) != 0) return ret;
    WriteError error;
    if ((ret = apply_indexes(op, coll, {t.rkey, t.rkey, &t.doc, nullptr}, &error)) != 0) return ret;
    assert(error.code == ErrorCode::kOk);
  }
  return 0;
}

bool WriteUnit::dropped(const CollectionSpec& coll) const {
  const CollectionSpec* now = state_.catalog.find(coll.ns);
  return now == nullptr || now->table != coll.table;
}

WriteOutcome WriteUnit::write_attempt(OperationContext& op, const WriteTarget& target, const Mutation& mutate,
                                      CommitTickets& tickets) {
  WriteOutcome out;
  const CollectionSpec& coll = target.coll;
  HierarchicalLock lock(state_.locks, coll.db(), coll.name(), LockMode::kIX, state_.policy_for(coll));
  if (dropped(coll)) {  // while the write waited for its lock or yielded
    out.error = {0, ErrorCode::kNamespaceNotFound, "collection dropped: " + coll.ns};
    return out;
  }
  if (!(out.status = Status::from_wt(op.begin())).ok()) return out;
  MmapAllocator* alloc = coll.padded ? &state_.allocator(coll) : nullptr;
  if (alloc != nullptr) alloc->begin();
  Attempt a(target.rkey);
  const int ret = stage(op, target, mutate, &a, &out);
  if (ret != 0 || out.error.code != ErrorCode::kOk || !out.changed) {
    op.rollback();
    if (alloc != nullptr) alloc->rollback();
    out.status = Status::from_wt(ret);
    return out;
  }
  out.status = Status::from_wt(commit_attempt(op, target, a, tickets));
  return out;
}

// Planted bug: a retry keeps the document its first attempt read (the self-test build only).
void WriteUnit::reuse_first_read(std::optional<Document>* current) {
  if (planted_first_read_) {
    *current = *planted_first_read_;
  } else {
    planted_first_read_ = *current;
  }
}

WriteOutcome WriteUnit::write_one(OperationContext& op, const WriteTarget& target, const Mutation& mutate,
                                  CommitTickets& tickets) {
  planted_first_read_.reset();
  WriteOutcome out;
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    out = write_attempt(op, target, mutate, tickets);
    if (out.status.wt_code != WT_ROLLBACK) return out;
    ++state_.metrics.write_conflicts;  // WriteConflictException: abandon the snapshot and retry
    backoff_after_conflict(attempt);
  }
  out.status = Status::failed(WT_ROLLBACK);
  return out;
}

int WriteUnit::finish_durable(OperationContext& op, const CommitTickets& tickets) {
  if (!tickets.durable || tickets.ids.empty()) return 0;
  const int ret = op.flush_log();  // its sync pays the disk time inside the call
  if (state_.env.observer != nullptr) state_.env.observer->after_flush(tickets.ids, ret);
  return ret;
}

int WriteUnit::stage_group_member(OperationContext& op, const CollectionSpec& coll, const Document& doc,
                                  const RecordBytes& bytes, bool* fallback) {
  // A clustered collection's record key is the _id; otherwise the _id index finds a duplicate.
  const std::string rkey = coll.clustered ? record_key(doc["_id"]) : std::string();
  int ret = 0;
  if (coll.clustered && (read_current(op, coll, rkey, &ret) || ret != 0)) {
    *fallback = ret == 0;  // a duplicate _id: one at a time reports it precisely
    return ret;
  }
  RecordPlacement placement;
  WriteError error;
  if ((ret = apply_record(op, coll, rkey, {nullptr, &doc, bytes}, &placement)) == 0) {
    ret = apply_indexes(op, coll, {rkey, placement.rkey, nullptr, &doc}, &error);
  }
  if (ret == 0 && error.code != ErrorCode::kOk) *fallback = true;  // a duplicate key
  if (ret == 0 && !*fallback) ret = oplog_.append(op, coll, nullptr, &bytes.next);
  return ret;
}

int WriteUnit::insert_group_attempt(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                                    CommitTickets& tickets, bool* fallback) {
  assert(!coll.padded && "padded collections insert one document at a time");
  assert(!group.empty() && !*fallback);
  HierarchicalLock lock(state_.locks, coll.db(), coll.name(), LockMode::kIX, state_.policy_for(coll));
  if (dropped(coll)) return *fallback = true, 0;  // one at a time, each answered as dropped
  int ret = op.begin();
  size_t bytes = 0;
  std::vector<DocWrite> writes;
  std::vector<RecordBytes> encoded(group.size());  // sized once: the writes view into it
  for (size_t i = 0; ret == 0 && i < group.size() && !*fallback; ++i) {
    const Document& doc = *group[i];
    encoded[i].next = to_bson(doc);
    ret = stage_group_member(op, coll, doc, encoded[i], fallback);
    bytes += encoded[i].next.size();
    writes.push_back(DocWrite{.ns = coll.ns, .id = &doc.at("_id"), .post_image = &doc, .post_bson = view_of(encoded[i].next)});
  }
  if (ret == 0 && !*fallback) pay_write_cost(bytes, group.size());
  if (ret != 0 || *fallback) {
    op.rollback();
    return ret;
  }
  CommitObserver* observer = state_.env.observer;
  const uint64_t ticket = observer != nullptr ? observer->before_commit(writes, tickets.durable) : 0;
  ret = op.commit();
  if (observer != nullptr) observer->after_commit(ticket, ret);
  if (ret != 0) return ret;
  state_.index_edits_committed(op);
  state_.counts[coll.ns].count += static_cast<int64_t>(group.size());
  state_.counts[coll.ns].data_bytes += static_cast<int64_t>(bytes);
  if (tickets.durable) tickets.ids.push_back(ticket);
  return 0;
}

int WriteUnit::insert_group(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                            CommitTickets& tickets, bool* fallback) {
  for (int attempt = 0; attempt < kMaxConflictRetries; ++attempt) {
    const int ret = insert_group_attempt(op, coll, group, tickets, fallback);
    if (ret != WT_ROLLBACK) return ret;
    ++state_.metrics.write_conflicts;
    backoff_after_conflict(attempt);
  }
  return WT_ROLLBACK;
}

}  // namespace wtsim::engine
