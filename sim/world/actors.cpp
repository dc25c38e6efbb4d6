// The actors of a run: the node's writers, journal flusher and checkpointer, and the fault actor.
#include <wiredtiger.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <set>

#include "engine/wt_error.h"
#include "sim/world/world.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kErrorBackoffNs = 10 * sim::kNsPerMs;

std::string key_name(uint64_t k) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "k%06llu", static_cast<unsigned long long>(k));
  return buf;
}

}  // namespace

void World::spawn_node_actors() {
  const std::string gen = std::to_string(node_->generation());
  for (uint64_t i = 0; i < scenario_.workload.writers; ++i) {
    sim_.spawn("writer-" + std::to_string(i) + ".g" + gen, "node", [this, i] { writer(static_cast<int>(i)); });
  }
  sim_.spawn("journal-flusher.g" + gen, "node", [this] { journal_flusher(); });
  sim_.spawn("checkpointer.g" + gen, "node", [this] { checkpointer(); });
}

void World::pay_disk(sim::Nanos cost_ns) {
  const double factor = injector_.latency_factor(sim_.now_ns());
  disk_queue_.use(static_cast<sim::Nanos>(static_cast<double>(cost_ns) * factor));
}

void World::handle_wt_failure(int code, const std::string& what) {
  trace_->event(sim_.now_ns(), sim_.current().name, "wt_error",
                {{"op", what}, {"code", code}, {"error", wiredtiger_strerror(code)}});
  drain_wt_messages();
  // Like MongoDB, which fasserts when a journal flush fails, the engine treats a failed commit,
  // log flush or checkpoint as fatal. Continuing is unsafe: after a failed fsync Linux drops the
  // dirty pages, WiredTiger 3.2.1 carries on, and the hole it leaves in the log makes recovery
  // silently drop every later acknowledged commit (found by the fault_mix scenario).
  const bool fatal_io = (code == EIO || code == ENOSPC) && what != "apply";
  if (code == WT_PANIC || fatal_io) {
    // The process dies; the OS page cache survives it, so nothing unsynced is lost.
    crash_node(faults::CrashMode::kDropUnsynced, /*power_loss=*/false,
               std::string(code == WT_PANIC ? "WiredTiger panic" : "fatal I/O error") + " in " + what);
    throw sim::Cancelled{};
  }
  sim_.sleep_for(kErrorBackoffNs);
}

void World::writer(int index) {
  const WorkloadSpec& w = scenario_.workload;
  const engine::CostModel& cost = scenario_.cost;
  sim::Rng rng = sim::stream(seed_, "workload.writer." + std::to_string(index) + ".g" +
                                        std::to_string(node_->generation()));
  engine::KvSession session(node_->conn());
  while (sim_.now_ns() < end_ns_) {
    sim_.sleep_for(rng.between(0, 2 * w.think_ns));
    if (sim_.now_ns() >= end_ns_) break;
    const uint64_t seq = model_.next_seq();
    const uint64_t n = static_cast<uint64_t>(rng.between(1, static_cast<int64_t>(w.keys_per_txn_max)));
    std::set<uint64_t> keys;
    while (keys.size() < std::min(n, w.keys)) keys.insert(rng.below(w.keys));
    std::vector<models::KvWrite> writes;
    uint64_t bytes = 0;
    for (uint64_t k : keys) {
      models::KvWrite write{key_name(k), std::nullopt};
      if (!rng.chance(w.delete_fraction)) {
        const auto size = static_cast<size_t>(rng.between(static_cast<int64_t>(w.value_bytes_min),
                                                          static_cast<int64_t>(w.value_bytes_max)));
        write.value = models::KvModel::make_value(seq, size);
        bytes += size;
      }
      writes.push_back(std::move(write));
    }
    const bool durable = rng.chance(w.durable_fraction);
    const uint64_t began = model_.begin_commit(writes, durable);
    assert(began == seq);
    int ret = session.apply(writes);
    after_wt_call();
    if (ret != 0) {
      model_.aborted(seq);
      ++stats_.commits_failed;
      handle_wt_failure(ret, "apply");
      continue;
    }
    ret = session.commit(durable);
    after_wt_call();
    if (ret != 0) {
      model_.in_doubt(seq);
      ++stats_.commits_failed;
      handle_wt_failure(ret, "commit");
      continue;
    }
    model_.ack(seq);
    ++stats_.commits_acked;
    nlohmann::json keys_json = nlohmann::json::array();
    for (const auto& wr : writes) keys_json.push_back(wr.value ? wr.key : "-" + wr.key);  // "-": delete
    trace_->event(sim_.now_ns(), sim_.current().name, "commit",
                  {{"seq", seq}, {"keys", keys_json}, {"durable", durable}});
    cpu_.use(cost.cpu_per_op_ns * static_cast<sim::Nanos>(writes.size()) +
             cost.cpu_per_byte_ns * static_cast<sim::Nanos>(bytes));
    if (durable) pay_disk(cost.disk_sync_ns + cost.disk_per_byte_ns * static_cast<sim::Nanos>(bytes));
  }
}

void World::journal_flusher() {
  engine::KvSession session(node_->conn());
  while (true) {
    sim_.sleep_for(scenario_.node.journal_commit_interval_ns);
    if (sim_.now_ns() >= end_ns_) break;
    const uint64_t covered = model_.flush_started();
    const int ret = session.log_flush();
    after_wt_call();
    if (ret != 0) {
      handle_wt_failure(ret, "log_flush");
      continue;
    }
    model_.flush_returned(covered);
    pay_disk(scenario_.cost.disk_sync_ns);
  }
}

void World::checkpointer() {
  engine::KvSession session(node_->conn());
  while (true) {
    sim_.sleep_for(scenario_.node.checkpoint_interval_ns);
    if (sim_.now_ns() >= end_ns_) break;
    const int ret = session.checkpoint();
    after_wt_call();
    if (ret != 0) {
      handle_wt_failure(ret, "checkpoint");
      continue;
    }
    ++stats_.checkpoints;
    trace_->event(sim_.now_ns(), sim_.current().name, "checkpoint", {{"disk_bytes", disk_.used_bytes()}});
    pay_disk(scenario_.cost.checkpoint_base_ns);
  }
}

void World::fault_actor() {
  struct Action {
    sim::Nanos at_ns;
    size_t index;
    bool window_end;
  };
  std::vector<Action> timeline;
  const auto& faults = injector_.plan().faults;
  for (size_t i = 0; i < faults.size(); ++i) {
    if (!faults[i].at_ns) continue;
    timeline.push_back({*faults[i].at_ns, i, false});
    if (faults[i].until_ns > 0) timeline.push_back({faults[i].until_ns, i, true});
  }
  std::stable_sort(timeline.begin(), timeline.end(),
                   [](const Action& a, const Action& b) { return a.at_ns < b.at_ns; });
  for (const Action& a : timeline) {
    if (a.at_ns >= end_ns_) break;
    sim_.sleep_until(a.at_ns);
    const faults::Fault& f = faults[a.index];
    nlohmann::json details = {{"plan_index", a.index}, {"kind", faults::to_string(f.kind)}};
    switch (f.kind) {
      case faults::FaultKind::kCrash:
        crash_node(f.crash_mode, /*power_loss=*/true, "fault plan #" + std::to_string(a.index));
        continue;  // crash_node records the event
      case faults::FaultKind::kBitFlip: {
        auto names = disk_.list("");
        auto it = std::find_if(names.begin(), names.end(),
                               [&](const std::string& n) { return n.find(f.file) != std::string::npos; });
        const bool flipped = it != names.end() && disk_.flip_bit(*it, f.offset, f.bit);
        details["file"] = it != names.end() ? *it : f.file;
        details["applied"] = flipped;
        break;
      }
      case faults::FaultKind::kDiskFull:
        disk_.set_capacity(a.window_end ? faults::Disk::kUnlimited : f.capacity_bytes);
        details["phase"] = a.window_end ? "end" : "start";
        break;
      case faults::FaultKind::kLatency:
        details["phase"] = a.window_end ? "end" : "start";  // pay_disk() consults the plan
        break;
      case faults::FaultKind::kLyingSync:
        disk_.set_sync_lies(f.file);
        details["file"] = f.file;
        break;
      default:
        continue;
    }
    trace_->event(sim_.now_ns(), "faults", "fired", details);
  }
}

}  // namespace wtsim::world
