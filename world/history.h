#pragma once
// The client history in the trace (docs/reference/trace-format.md, "Checking a trace yourself"). Each commit has:
// - its invocation (`commit`: seq, durable, every key it writes with a digest of each value);
// - its completion (`complete`: fate ok, or info when it may or may not have happened);
// - each find's result (`read`: its snapshot, each document's key and value digest);
// - the journal flushes that make non-durable commits durable (`flush_start`, `flush_end`).
// A recovered state is given by its digest. The model judges, and this records what it judged,
// so that a reader sharing no code with the project can judge again. Every model transition of
// a commit goes through here, so the two cannot drift apart.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/kv_model.h"
#include "sim/scheduler.h"
#include "traces/trace.h"

namespace wtsim::world {

class History {
 public:
  // `member`: the replica set member whose commits these are; its events say so when it is not 0.
  History(traces::Trace& trace, sim::Simulator& sim, models::KvModel& model, size_t member = 0)
      : trace_(trace), sim_(sim), model_(model), member_(member) {}

  // A commit is about to be asked of WiredTiger. `details` adds the workload's own fields (op, ns...).
  uint64_t invoke(std::vector<models::KvWrite> writes, bool durable, nlohmann::json details);
  void ok(uint64_t seq);
  // May or may not have happened: a failed commit, or one a crash cut (`why`).
  void info(uint64_t seq, const char* why);
  // The node crashed: every commit still open is in doubt.
  void crashed();
  // Before a check of a recovered (or final) state is traced: a commit invoked on the fenced node
  // after the crash (its fiber had not yet noticed) completes as info, so the check settles all.
  void close_fenced();
  // The model takes the checked state as its base. No commit is open.
  void rebased(models::KvState state);
  // A journal flush starts: it will make every acknowledged commit so far durable. Returns that seq.
  uint64_t flush_started();
  void flush_returned(uint64_t covers, int ret);
  size_t open_commits() const { return open_.size(); }

  // A commit lists its writes up to this many; a bigger one (an insert group, a drop) gives their
  // count and `packed`: the keys' shared prefix, the rest of each key (or a range of whole
  // numbers), and the new and old value digests as one string each.
  static constexpr size_t kWritesListedMax = 4;
  // A find completed (`read`): `snapshot` is the number of commits acknowledged when it began
  // (the model's read token); `details` hold ns, filter and docs ([key, value digest, the
  // document's fields the filter names] each), so that a reader can judge the read alone.
  void read(uint64_t snapshot, nlohmann::json details);
  // A hot backup's point in time (`backup_pin`): it holds every commit up to `snapshot_seq` that
  // is acknowledged or still open (`pending`), none in doubt.
  void snapshot_pinned(uint64_t snapshot_seq);
  static constexpr size_t kReadDocsListedMax = 10000;

  // 16 hex digits of FNV-1a 64 over the value's bytes; null for an absent value (a delete).
  static nlohmann::json value_digest(const std::string* value);
  static std::optional<uint64_t> digest_of(const std::string* value);  // the same, unformatted
  // A state's digest: the sum, modulo 2^64, over its keys of entry(key, value), in 16 hex
  // digits. Order-free, so a commit changes it by entry(key, new) - entry(key, old) per write.
  static std::string state_digest(const models::KvState& state);
  // FNV-1a 64 over key + "\0" + value_digest(value); 0 for an absent value (nullptr).
  static uint64_t entry(const std::string& key, const std::string* value);

 private:
  void complete(uint64_t seq, const char* fate, const char* why);
  uint64_t event(const char* kind, nlohmann::json details);

  traces::Trace& trace_;
  sim::Simulator& sim_;
  models::KvModel& model_;
  size_t member_;
  // Invoked, not completed: seq -> invocation time (ordered: a crash's completions are in seq order).
  std::map<uint64_t, sim::Nanos> open_;
};

}  // namespace wtsim::world
