// The node's actors: journal flusher, checkpointer, metrics sampler and fault actor; and what its
// actors call when a call into WiredTiger fails or pays for the disk.
#include <wiredtiger.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>

#include "engine/operation_context.h"
#include "engine/wt_error.h"
#include "sim/wt_threads.h"
#include "world/node_host.h"

namespace wtsim::world {
namespace {

constexpr sim::Nanos kErrorBackoffNs = 10 * sim::kNsPerMs;

}  // namespace

void NodeHost::spawn_node_actors() {
  const std::string gen = generation_suffix();
  system_->spawn_actors(gen);
  sim_.spawn("journal-flusher" + gen, group_, [this] { journal_flusher(); });
  sim_.spawn("checkpointer" + gen, group_, [this] { checkpointer(); });
}

void NodeHost::pay_disk(sim::Nanos cost_ns) {
  const double factor = injector_.latency_factor(sim_.now_ns());
  disk_queue_.use(static_cast<sim::Nanos>(static_cast<double>(cost_ns) * factor));
}

void NodeHost::handle_wt_failure(int code, const std::string& what, OnIoError on_io_error) {
  assert(code != 0);
  event(sim_.current().name, "wt_error",
                {{"op", what}, {"code", code}, {"error", wiredtiger_strerror(code)}});
  drain_wt_messages();
  // A failed sync has already halted WiredTiger (WT_PANIC), as its POSIX layer does. Like
  // MongoDB, which fasserts when a journal flush fails, the engine also treats a commit, log
  // flush or checkpoint that fails with EIO or ENOSPC as fatal: the write that failed may have
  // left a hole in the log (docs/findings.md, findings 2 and 25).
  const bool fatal_io = (code == EIO || code == ENOSPC) && on_io_error == OnIoError::kFatal;
  if (code == WT_PANIC || fatal_io) {
    // The process dies; the OS page cache survives it, so nothing unsynced is lost.
    crash_node(faults::CrashMode::kDropUnsynced, /*power_loss=*/false,
               std::string(code == WT_PANIC ? "WiredTiger panic" : "fatal I/O error") + " in " + what);
    throw sim::Cancelled{};
  }
  sim_.sleep_for(kErrorBackoffNs);
}

void NodeHost::crash_now(faults::CrashMode mode, const std::string& cause) {
  crash_node(mode, /*power_loss=*/true, cause);
  throw sim::Cancelled{};
}

void NodeHost::arm_crash_after(uint64_t n, faults::CrashMode mode) {
  assert(n >= 1);
  faults::Fault crash;
  crash.kind = faults::FaultKind::kCrash;
  crash.at_disk_op = injector_.mutating_ops() + n;
  crash.crash_mode = mode;
  injector_.add(crash);
  event(sim_.current().name, "crash_armed", {{"at_disk_op", *crash.at_disk_op}, {"mode", faults::to_string(mode)}});
}

uint64_t NodeHost::table_file_bytes() const {
  uint64_t total = 0;
  for (const faults::FileInfo& f : disk_.files()) {
    if (f.name.rfind("WiredTigerLog.", 0) != 0) total += f.current_bytes;
  }
  return total;
}

void NodeHost::metrics_sampler() {
  while (sim_.now_ns() < run_.end_ns()) {
    sim_.sleep_until(std::min(sim_.now_ns() + scenario_.node.metrics_interval_ns, run_.end_ns()));
    if (!node_->up() || restarting_) continue;
    nlohmann::json sample;
    try {
      sample = system_->sample_metrics();
    } catch (const engine::WtError&) {
      // A connection WiredTiger's own thread panicked may open no session: no sample. The node's
      // next call crashes it (the sampler is the run's, not the node's, and records no failure).
      if (!sim::wt_threads::panicked(node_->conn())) throw;
      continue;
    }
    if (sample.is_null()) continue;
    sample["disk_bytes"] = table_file_bytes();  // table files, without the log
    event("metrics", "sample", std::move(sample));
  }
}

void NodeHost::journal_flusher() {
  engine::OperationContext op(node_->conn());
  while (true) {
    sim_.sleep_until(std::min(sim_.now_ns() + scenario_.node.journal_commit_interval_ns, run_.end_ns()));
    if (sim_.now_ns() >= run_.end_ns()) break;
    const uint64_t covers = history_.flush_started();
    const auto failed = [&] { history_.flush_returned(covers, -1); };
    if (node_call("log_flush", [&] { return op.flush_log(); }, {OnIoError::kFatal, failed}) != 0) continue;
    history_.flush_returned(covers, 0);  // the sync paid its disk time inside the call
  }
}

void NodeHost::checkpointer() {
  engine::OperationContext op(node_->conn());
  while (true) {
    const bool soon = run_.buggify().fire("checkpoint_right_away");  // legal: checkpoints may run any time
    sim_.sleep_until(std::min(sim_.now_ns() + (soon ? sim::kNsPerMs : scenario_.node.checkpoint_interval_ns), run_.end_ns()));
    if (sim_.now_ns() >= run_.end_ns()) break;
    event(sim_.current().name, "checkpoint_start", nlohmann::json::object());
    injector_.note(faults::CrashAnchor::kCheckpointStart);
    // Busy through the drain of the faults the checkpoint fired: a crash they cause is one
    // during the checkpoint.
    const int ret = node_call("checkpoint", [&] { return op.session()->checkpoint(op.session(), nullptr); },
                              {.busy = &checkpoint_running_});
    if (ret != 0) continue;
    ++run_.stats().checkpoints;
    event(sim_.current().name, "checkpoint", {{"disk_bytes", table_file_bytes()}});
  }
}

void NodeHost::fault_actor() {
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
    // Nothing starts after the fault phase, but every window ends by then: a disk left full for
    // ever would keep the node from ever restarting (fault_mix seeds 140, 322, 334, 412, 463).
    if (a.at_ns >= run_.fault_end_ns() && !a.window_end) continue;
    sim_.sleep_until(std::min(a.at_ns, run_.fault_end_ns()));
    // The phase ended early (end_after_recovery_ms): what had not started by then never does.
    if (!a.window_end && (sim_.now_ns() < a.at_ns || sim_.now_ns() >= run_.fault_end_ns())) continue;
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
    event("faults", "fired", details);
  }
}

}  // namespace wtsim::world
