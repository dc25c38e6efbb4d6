#include "faults/fault_injector.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdlib>

#include "faults/weakening.h"
#include "sim/wt_threads.h"

namespace wtsim::faults {
namespace {

// What the injector relies on in a plan: count triggers count from 1, and a window (disk full,
// latency) has a start before its end.
bool triggers_well_formed(const FaultPlan& plan) {
  for (const Fault& f : plan.faults) {
    if (f.at_disk_op && *f.at_disk_op == 0) return false;
    if (f.after && (f.kind != FaultKind::kCrash || f.at_disk_op || f.at_ns || f.after->nth == 0)) return false;
    const bool window = f.kind == FaultKind::kDiskFull || f.kind == FaultKind::kLatency;
    if (window && (!f.at_ns || f.until_ns <= *f.at_ns)) return false;
  }
  return true;
}

}  // namespace

void FaultInjector::add(const Fault& fault) {
  assert(fault.at_disk_op && *fault.at_disk_op > mutating_ops_ && "armed for an operation still to come");
  plan_.faults.push_back(fault);
  matched_.push_back(0);
  spent_.push_back(false);
  started_at_op_.push_back(0);
  armed_at_op_.push_back(0);
  assert(triggers_well_formed(plan_));
}

const char* to_string(FsOp op) {
  switch (op) {
    case FsOp::kRead: return "read";
    case FsOp::kWrite: return "write";
    case FsOp::kSync: return "sync";
    case FsOp::kTruncate: return "truncate";
    case FsOp::kCreate: return "create";
    case FsOp::kRename: return "rename";
    case FsOp::kRemove: return "remove";
  }
  return "?";
}

FaultInjector::FaultInjector(FaultPlan plan)
    : plan_(std::move(plan)),
      matched_(plan_.faults.size(), 0),
      spent_(plan_.faults.size(), false),
      started_at_op_(plan_.faults.size(), 0),
      armed_at_op_(plan_.faults.size(), 0) {
  assert(triggers_well_formed(plan_));
}

bool FaultInjector::matches(const Fault& f, FsOp op, const std::string& file) const {
  if (!f.file.empty() && file.find(f.file) == std::string::npos) return false;
  switch (f.kind) {
    case FaultKind::kIoError:
      return (f.op == DiskOp::kRead && op == FsOp::kRead) ||
             (f.op == DiskOp::kWrite && op == FsOp::kWrite) ||
             (f.op == DiskOp::kSync && op == FsOp::kSync);
    case FaultKind::kMisdirectedWrite:
      return op == FsOp::kWrite;
    default:
      return false;
  }
}

void FaultInjector::note(CrashAnchor event) { note_event(event, mutating_ops_ + 1); }

void FaultInjector::note_event(CrashAnchor event, uint64_t first_op) {
  const size_t e = static_cast<size_t>(event);
  assert(e < anchor_counts_.size());
  const uint64_t nth = ++anchor_counts_[e];
  for (size_t i = 0; i < plan_.faults.size(); ++i) {
    const Fault& f = plan_.faults[i];
    if (spent_[i] || !f.after || f.after->event != event || f.after->nth != nth) continue;
    assert(armed_at_op_[i] == 0 && "an anchor's nth occurrence comes once");
    armed_at_op_[i] = first_op + f.after->disk_ops;
  }
}

void FaultInjector::note_anchors(FsOp op, const std::string& file, const std::string& actor) {
  assert(op != FsOp::kRead);
  note_log_switch(op, file);
  const bool evicting = sim::wt_threads::in_eviction() || actor.rfind("wt:evict", 0) == 0;
  if (evicting && !evicting_) note_event(CrashAnchor::kEvictionPass, mutating_ops_);
  evicting_ = evicting;
}

// A log switch begins with a later log file's creation (WiredTiger 3.2.1 writes it as
// WiredTigerTmplog.N and renames it to WiredTigerLog.N) and ends with the sync of an older log
// file (the log-close server's, before it closes the file); the closing sync is part of it.
void FaultInjector::note_log_switch(FsOp op, const std::string& file) {
  if (log_switch_closed_at_op_ != 0 && log_switch_closed_at_op_ < mutating_ops_) end_log_switch();  // its closing sync is done
  const bool log = file.rfind("WiredTigerLog.", 0) == 0;
  const bool new_log = file.rfind("WiredTigerTmplog.", 0) == 0;
  if (!log && !new_log) return;
  const uint64_t number = std::strtoull(file.c_str() + file.find('.') + 1, nullptr, 10);
  if (new_log && op == FsOp::kCreate && number > 1) {
    newest_log_ = number;
    log_switch_first_op_ = mutating_ops_;
    log_switch_closed_at_op_ = 0;
    note_event(CrashAnchor::kLogSwitch, mutating_ops_);
  } else if (log && op == FsOp::kSync && in_log_switch() && number < newest_log_) {
    log_switch_closed_at_op_ = mutating_ops_;
  }
  assert(!in_log_switch() || log_switch_first_op_ <= mutating_ops_);
}

uint64_t FaultInjector::crash_trigger(size_t i) const {
  const Fault& f = plan_.faults[i];
  assert(f.kind == FaultKind::kCrash);
  return f.at_disk_op ? *f.at_disk_op : armed_at_op_[i];  // 0: none (a time trigger, or not yet armed)
}

FaultDecision FaultInjector::on_disk_op(FsOp op, const std::string& file, const std::string& actor) {
  FaultDecision d;
  if (op != FsOp::kRead && enabled_ && before_mutating_op_) before_mutating_op_(mutating_ops_ + 1);
  if (op != FsOp::kRead) ++mutating_ops_;
  if (!enabled_) return d;
  if (op != FsOp::kRead) note_anchors(op, file, actor);
  // A crash first: an op that never reaches the disk meets no other fault (no earlier entry's
  // EIO or misdirect rides along on the crash, and none is spent by it).
  if (op != FsOp::kRead) {
    const bool late = weakening::active(weakening::Weakening::kCrashOneOpLate);
    for (size_t i = 0; i < plan_.faults.size(); ++i) {
      const Fault& f = plan_.faults[i];
      if (spent_[i] || f.kind != FaultKind::kCrash) continue;
      const uint64_t trigger = crash_trigger(i);
      if (trigger == 0 || trigger + (late ? 1 : 0) != mutating_ops_) continue;
      spent_[i] = true;
      d.crash = true;
      d.crash_mode = f.crash_mode;
      fired_.push_back({i, mutating_ops_, file, std::string("crash before ") + to_string(op), actor});
      return d;
    }
  }
  for (size_t i = 0; i < plan_.faults.size(); ++i) {
    const Fault& f = plan_.faults[i];
    if (spent_[i] || !f.at_disk_op || f.kind == FaultKind::kCrash) continue;
    if (!matches(f, op, file)) continue;
    const uint64_t n = ++matched_[i];
    if (n < *f.at_disk_op) continue;
    if (f.kind == FaultKind::kIoError) {
      if (weakening::active(weakening::Weakening::kIoErrorDropped)) continue;
      if (!f.sticky || weakening::active(weakening::Weakening::kStickyErrorHeals)) spent_[i] = true;
      d.error = EIO;
      d.drop_dirty = f.drop_dirty && op == FsOp::kSync;
      if (n == *f.at_disk_op) {  // a sticky error is recorded once, when it starts
        if (f.sticky) started_at_op_[i] = std::max<uint64_t>(mutating_ops_, 1);
        fired_.push_back({i, mutating_ops_, file, std::string("EIO on ") + to_string(op), actor});
      }
    } else if (f.kind == FaultKind::kMisdirectedWrite) {
      spent_[i] = true;
      d.misdirect_bytes = weakening::active(weakening::Weakening::kMisdirectLandsInPlace) ? 0 : f.misdirect_bytes;
      fired_.push_back({i, mutating_ops_, file, "misdirected write", actor});
    }
  }
  assert(!d.drop_dirty || (d.error != 0 && op == FsOp::kSync));
  assert(d.misdirect_bytes == 0 || op == FsOp::kWrite);
  return d;
}

void FaultInjector::power_cycled() {
  for (size_t i = 0; i < plan_.faults.size(); ++i) {
    if (started_at_op_[i] == 0 || spent_[i]) continue;
    assert(plan_.faults[i].kind == FaultKind::kIoError && plan_.faults[i].sticky);
    spent_[i] = true;
  }
  assert(active_sticky_errors().empty());
}

std::vector<std::string> FaultInjector::active_sticky_errors() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < plan_.faults.size(); ++i) {
    if (started_at_op_[i] == 0 || spent_[i]) continue;
    const Fault& f = plan_.faults[i];
    assert(f.kind == FaultKind::kIoError && f.sticky);
    assert(started_at_op_[i] <= std::max<uint64_t>(mutating_ops_, 1));  // it started in the past
    out.push_back("plan #" + std::to_string(i) + ": sticky EIO on " + to_string(f.op) + " of " +
                  (f.file.empty() ? std::string("any file") : f.file) + " since disk op " + std::to_string(started_at_op_[i]));
  }
  return out;
}

double FaultInjector::latency_factor(sim::Nanos now_ns) const {
  double factor = 1.0;
  if (!enabled_) return factor;  // faults over (the liveness phase, the final checks)
  if (weakening::active(weakening::Weakening::kLatencyIgnored)) return factor;
  for (const Fault& f : plan_.faults) {
    if (f.kind == FaultKind::kLatency && now_ns >= *f.at_ns && now_ns < f.until_ns) factor *= f.factor;
  }
  assert(factor >= 1.0);  // a latency window only ever slows the disk
  return factor;
}

std::optional<uint64_t> FaultInjector::capacity_at(sim::Nanos now_ns) const {
  std::optional<uint64_t> cap;
  for (const Fault& f : plan_.faults) {
    if (f.kind == FaultKind::kDiskFull && now_ns >= *f.at_ns && now_ns < f.until_ns) {
      cap = cap ? std::min(*cap, f.capacity_bytes) : f.capacity_bytes;
    }
  }
  return cap;
}

std::vector<FiredFault> FaultInjector::take_fired() {
  std::vector<FiredFault> out;
  out.swap(fired_);
  return out;
}

}  // namespace wtsim::faults
