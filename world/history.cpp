#include "world/history.h"

#include <cassert>
#include <memory>

#include "sim/random.h"
#include "world/commit_event.h"

namespace wtsim::world {

using traces::hex16;

nlohmann::json History::value_digest(const std::string* value) {
  const std::optional<uint64_t> digest = digest_of(value);
  if (!digest) return nullptr;
  return hex16(*digest);
}

std::optional<uint64_t> History::digest_of(const std::string* value) {
  if (value == nullptr) return std::nullopt;
  return sim::fnv1a64(*value);
}

uint64_t History::entry(const std::string& key, const std::string* value) {
  if (value == nullptr) return 0;
  return sim::fnv1a64(key + std::string(1, '\0') + hex16(sim::fnv1a64(*value)));
}

std::string History::state_digest(const models::KvState& state) {
  uint64_t sum = 0;  // unsigned: wraps modulo 2^64
  for (const auto& [key, value] : state) sum += entry(key, &value);
  return hex16(sum);
}

namespace {

// A packed digest list: 16 hex digits per write, "-" x 16 for an absent value; null if all are absent.
nlohmann::json packed_digests(const std::vector<nlohmann::json>& digests) {
  std::string out;
  bool any = false;
  for (const nlohmann::json& d : digests) {
    any = any || !d.is_null();
    out += d.is_null() ? std::string(16, '-') : d.get<std::string>();
  }
  return any ? nlohmann::json(out) : nlohmann::json(nullptr);
}

// A group's keys: the prefix they share up to its first '|' (a collection's "ns|"), then the
// rest of each key, or [first, last] when the rests are consecutive whole numbers (an insert group).
void pack_keys(const std::vector<models::KvWrite>& writes, nlohmann::json* packed) {
  const std::string& first = writes.front().key;
  std::string prefix = first.substr(0, first.find('|') == std::string::npos ? 0 : first.find('|') + 1);
  for (const models::KvWrite& w : writes) {
    if (w.key.rfind(prefix, 0) != 0) prefix.clear();
  }
  std::vector<std::string> rests;
  bool consecutive = true;
  for (const models::KvWrite& w : writes) {
    rests.push_back(w.key.substr(prefix.size()));
    const std::string& r = rests.back();
    const bool whole = !r.empty() && r.size() < 19 && r.find_first_not_of("0123456789") == std::string::npos && (r == "0" || r[0] != '0');
    consecutive = consecutive && whole && (rests.size() == 1 || std::stoull(r) == std::stoull(rests[rests.size() - 2]) + 1);
  }
  (*packed)["prefix"] = prefix;
  if (consecutive) {
    (*packed)["id_range"] = {std::stoull(rests.front()), std::stoull(rests.back())};
  } else {
    (*packed)["ids"] = rests;
  }
}

}  // namespace

uint64_t History::invoke(std::vector<models::KvWrite> writes, bool durable, nlohmann::json details) {
  assert(!writes.empty());
  assert(details.is_object() && !details.contains("seq") && !details.contains("writes"));
  auto event = std::make_unique<CommitEvent>();
  event->details = std::move(details);
  // Each write: [key, new value's digest, the digest of the value it replaces] (null: absent).
  // A bigger group lists the same, packed: its keys, then the new and the old digests.
  if (writes.size() > kWritesListedMax) {
    std::vector<nlohmann::json> news, olds;
    for (const models::KvWrite& w : writes) {
      news.push_back(value_digest(w.value ? &*w.value : nullptr));
      olds.push_back(value_digest(model_.latest(w.key)));  // read before begin_commit adds this write
    }
    event->packed = nlohmann::json::object();
    pack_keys(writes, &event->packed);
    event->packed["new"] = packed_digests(news);
    event->packed["old"] = packed_digests(olds);
    event->writes_n = writes.size();
  } else {
    event->writes.reserve(writes.size());
    for (const models::KvWrite& w : writes) {
      event->writes.push_back({w.key, digest_of(w.value ? &*w.value : nullptr), digest_of(model_.latest(w.key))});
    }
  }
  const uint64_t seq = model_.begin_commit(std::move(writes), durable);
  event->seq = seq;
  event->durable = durable;
  event->member = member_;
  // Held: a completion that comes before any other event is written into it (one event).
  trace_.hold(sim_.now_ns(), sim_.current_or_main().name, "commit", std::move(event));
  [[maybe_unused]] const bool inserted = open_.emplace(seq, sim_.now_ns()).second;
  assert(inserted);
  return seq;
}

void History::complete(uint64_t seq, const char* fate, const char* why) {
  const auto it = open_.find(seq);
  assert(it != open_.end() && "a commit completes once");
  const sim::Nanos invoked_ns = it->second;
  open_.erase(it);
  auto* held = dynamic_cast<CommitEvent*>(trace_.held_details());
  if (held != nullptr && held->seq == seq && held->member == member_) {  // members' seqs overlap
    held->fate = fate;
    held->why = why;
    held->took_us = sim_.now_ns() / sim::kNsPerUs - invoked_ns / sim::kNsPerUs;
    trace_.release_held();
    return;
  }
  nlohmann::json details = {{"seq", seq}, {"fate", fate}};
  if (why != nullptr) details["why"] = why;
  event("complete", std::move(details));
}

void History::ok(uint64_t seq) {
  model_.ack(seq);
  complete(seq, "ok", nullptr);
}

void History::info(uint64_t seq, const char* why) {
  model_.in_doubt(seq);
  complete(seq, "info", why);
}

void History::crashed() {
  model_.crashed();
  const std::map<uint64_t, sim::Nanos> open = open_;
  for (const auto& [seq, invoked_ns] : open) complete(seq, "info", "crash");
  assert(open_.empty());
}

void History::close_fenced() {
  const std::map<uint64_t, sim::Nanos> open = open_;
  for (const auto& [seq, invoked_ns] : open) complete(seq, "info", "fenced");
  assert(open_.empty());
}

void History::rebased(models::KvState state) {
  assert(open_.empty() && "close_fenced() before the check's event");
  model_.rebase(std::move(state));
}

void History::read(uint64_t snapshot, nlohmann::json details) {
  assert(details.is_object() && details.contains("ns") && details.contains("docs") && !details.contains("snapshot"));
  assert(details["docs"].size() <= kReadDocsListedMax);
  details["snapshot"] = snapshot;
  event("read", std::move(details));
}

void History::snapshot_pinned(uint64_t snapshot_seq) {
  nlohmann::json pending = nlohmann::json::array();
  for (const auto& [seq, invoked_ns] : open_) {
    if (seq <= snapshot_seq) pending.push_back(seq);
  }
  event("backup_pin", {{"snapshot_seq", snapshot_seq}, {"pending", std::move(pending)}});
}

uint64_t History::flush_started() {
  const uint64_t covers = model_.flush_started();
  event("flush_start", {{"covers", covers}});
  return covers;
}

void History::flush_returned(uint64_t covers, int ret) {
  event("flush_end", {{"covers", covers}, {"ok", ret == 0}});
  if (ret == 0) model_.flush_returned(covers);
}

uint64_t History::event(const char* kind, nlohmann::json details) {
  if (member_ > 0) details["member"] = member_;
  return trace_.event(sim_.now_ns(), sim_.current_or_main().name, kind, std::move(details));
}

}  // namespace wtsim::world
