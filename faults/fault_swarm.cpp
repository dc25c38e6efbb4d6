#include "faults/fault_swarm.h"

#include <algorithm>
#include <cassert>

#include "sim/json_reader.h"

namespace wtsim::faults {
namespace {

// A drawn fault is one its JSON form reads back as: a trigger (count triggers from 1), and a
// window that ends after it starts.
bool drawn_well_formed(const Fault& f) {
  const bool window = f.kind == FaultKind::kDiskFull || f.kind == FaultKind::kLatency;
  return (f.at_ns || f.at_disk_op || f.after) && (!f.at_disk_op || *f.at_disk_op >= 1) &&
         (!f.at_ns || *f.at_ns % sim::kNsPerMs == 0) &&
         (!window || (f.at_ns && f.until_ns > *f.at_ns && f.until_ns % sim::kNsPerMs == 0));
}

size_t crashes_in(const FaultPlan& plan) {
  size_t n = 0;
  for (const Fault& f : plan.faults) n += f.kind == FaultKind::kCrash ? 1 : 0;
  return n;
}

sim::Nanos time_in(sim::Rng& rng, sim::Nanos duration_ns) {
  // Whole milliseconds, so the plan round-trips through its JSON form exactly.
  const int64_t ms = std::max<int64_t>(1, duration_ns / sim::kNsPerMs);
  const sim::Nanos t = rng.between(1, ms) * sim::kNsPerMs;
  // Inside the run (or its first millisecond), on a whole millisecond.
  assert(t >= sim::kNsPerMs && t <= std::max(duration_ns, sim::kNsPerMs) && t % sim::kNsPerMs == 0);
  return t;
}

Fault draw_crash(const SwarmSpec& spec, sim::Rng& rng, sim::Nanos duration_ns) {
  assert(!spec.crash_modes.empty() && spec.crash_disk_op_max >= 1);
  Fault f;
  f.kind = FaultKind::kCrash;
  f.crash_mode = spec.crash_modes[rng.below(spec.crash_modes.size())];
  if (spec.crash_anchor_chance > 0 && rng.chance(spec.crash_anchor_chance)) {  // no draw without: plans stay as they were
    const CrashAnchor events[] = {CrashAnchor::kCheckpointStart, CrashAnchor::kLogSwitch, CrashAnchor::kEvictionPass};
    f.after = Anchor{events[rng.below(3)], static_cast<uint64_t>(rng.between(1, static_cast<int64_t>(spec.anchor_nth_max))),
                     rng.below(spec.anchor_disk_ops_max)};
    return f;
  }
  if (rng.chance(spec.crash_by_disk_op_chance)) {
    f.at_disk_op = static_cast<uint64_t>(rng.between(1, static_cast<int64_t>(spec.crash_disk_op_max)));
  } else {
    f.at_ns = time_in(rng, duration_ns);
  }
  assert(!f.at_disk_op || *f.at_disk_op <= spec.crash_disk_op_max);
  return f;
}

Fault draw_io_error(sim::Rng& rng) {
  Fault f;
  f.kind = FaultKind::kIoError;
  const DiskOp ops[] = {DiskOp::kRead, DiskOp::kWrite, DiskOp::kSync};
  f.op = ops[rng.below(3)];
  const char* files[] = {"", "WiredTigerLog", ".wt"};
  f.file = files[rng.below(3)];
  f.at_disk_op = static_cast<uint64_t>(rng.between(1, 500));
  f.sticky = rng.chance(0.2);
  f.drop_dirty = f.op == DiskOp::kSync && rng.chance(0.5);
  return f;
}

Fault draw_window(FaultKind kind, sim::Rng& rng, sim::Nanos duration_ns) {
  assert(kind == FaultKind::kLatency || kind == FaultKind::kDiskFull);
  Fault f;
  f.kind = kind;
  f.at_ns = time_in(rng, duration_ns);
  f.until_ns = *f.at_ns + rng.between(100, 5000) * sim::kNsPerMs;
  f.factor = static_cast<double>(rng.between(2, 50));
  f.capacity_bytes = static_cast<uint64_t>(rng.between(1, 8)) << 20;  // small nodes: a window must bite
  return f;
}

Fault draw_corruption(FaultKind kind, sim::Rng& rng, sim::Nanos duration_ns) {
  assert(kind == FaultKind::kBitFlip || kind == FaultKind::kMisdirectedWrite);
  Fault f;
  f.kind = kind;
  const char* files[] = {"WiredTigerLog", "kv.wt", "WiredTiger.wt"};
  f.file = files[rng.below(3)];
  if (kind == FaultKind::kBitFlip) {
    f.at_ns = time_in(rng, duration_ns);
    f.offset = rng.next() % (1u << 20);
    f.bit = static_cast<int>(rng.below(8));
  } else {
    f.at_disk_op = static_cast<uint64_t>(rng.between(1, 300));
  }
  return f;
}

}  // namespace

SwarmSpec swarm_from_json(const nlohmann::json& j, const std::string& path) {
  sim::ObjectReader r(j, path);
  SwarmSpec s;
  s.crashes_max = r.u64_or("crashes_max", s.crashes_max);
  sim::check_bounds(s.crashes_max <= 1000, r.path_of("crashes_max"), "at most 1000");
  s.crash_by_disk_op_chance = r.fraction_or("crash_by_disk_op_chance", s.crash_by_disk_op_chance);
  s.crash_disk_op_max = std::max<uint64_t>(1, r.u64_or("crash_disk_op_max", s.crash_disk_op_max));
  s.crash_anchor_chance = r.fraction_or("crash_anchor_chance", s.crash_anchor_chance);
  s.anchor_nth_max = r.u64_or("anchor_nth_max", s.anchor_nth_max);
  sim::check_bounds(s.anchor_nth_max >= 1 && s.anchor_nth_max <= 1000, r.path_of("anchor_nth_max"), "in [1, 1000]");
  s.anchor_disk_ops_max = r.u64_or("anchor_disk_ops_max", s.anchor_disk_ops_max);
  sim::check_bounds(s.anchor_disk_ops_max >= 1 && s.anchor_disk_ops_max <= 100000, r.path_of("anchor_disk_ops_max"), "in [1, 100000]");
  if (const nlohmann::json* modes = r.optional("crash_modes")) {
    const std::string mpath = r.path_of("crash_modes");
    if (!modes->is_array() || modes->empty()) {
      throw sim::JsonError(mpath, "expected a non-empty array of crash modes");
    }
    s.crash_modes.clear();
    for (size_t i = 0; i < modes->size(); ++i) {
      const auto& m = (*modes)[i];
      auto mode = m.is_string() ? crash_mode_from_string(m.get<std::string>()) : std::nullopt;
      if (!mode) {
        throw sim::JsonError(mpath + "/" + std::to_string(i),
                             "expected drop_unsynced, torn_prefix or sector_damage, found " +
                                 sim::describe(m));
      }
      s.crash_modes.push_back(*mode);
    }
  }
  s.io_error_chance = r.fraction_or("io_error_chance", s.io_error_chance);
  s.latency_chance = r.fraction_or("latency_chance", s.latency_chance);
  s.disk_full_chance = r.fraction_or("disk_full_chance", s.disk_full_chance);
  s.bit_flip_chance = r.fraction_or("bit_flip_chance", s.bit_flip_chance);
  s.misdirected_write_chance = r.fraction_or("misdirected_write_chance", s.misdirected_write_chance);
  r.reject_unknown();
  return s;
}

nlohmann::json to_json(const SwarmSpec& s) {
  nlohmann::json modes = nlohmann::json::array();
  for (CrashMode m : s.crash_modes) modes.push_back(to_string(m));
  nlohmann::json j = {{"crashes_max", s.crashes_max},
                      {"crash_by_disk_op_chance", s.crash_by_disk_op_chance},
                      {"crash_disk_op_max", s.crash_disk_op_max},
                      {"crash_modes", modes},
                      {"io_error_chance", s.io_error_chance},
                      {"latency_chance", s.latency_chance},
                      {"disk_full_chance", s.disk_full_chance},
                      {"bit_flip_chance", s.bit_flip_chance},
                      {"misdirected_write_chance", s.misdirected_write_chance}};
  if (s.crash_anchor_chance > 0) {  // only then: a spec without anchors reads as it always did
    j["crash_anchor_chance"] = s.crash_anchor_chance;
    j["anchor_nth_max"] = s.anchor_nth_max;
    j["anchor_disk_ops_max"] = s.anchor_disk_ops_max;
  }
  return j;
}

FaultPlan draw_plan(const SwarmSpec& spec, sim::Rng& rng, sim::Nanos duration_ns) {
  FaultPlan plan;
  const uint64_t crashes = rng.below(spec.crashes_max + 1);
  for (uint64_t i = 0; i < crashes; ++i) plan.faults.push_back(draw_crash(spec, rng, duration_ns));
  if (rng.chance(spec.io_error_chance)) plan.faults.push_back(draw_io_error(rng));
  if (rng.chance(spec.latency_chance)) plan.faults.push_back(draw_window(FaultKind::kLatency, rng, duration_ns));
  if (rng.chance(spec.disk_full_chance)) plan.faults.push_back(draw_window(FaultKind::kDiskFull, rng, duration_ns));
  if (rng.chance(spec.bit_flip_chance)) plan.faults.push_back(draw_corruption(FaultKind::kBitFlip, rng, duration_ns));
  if (rng.chance(spec.misdirected_write_chance)) {
    plan.faults.push_back(draw_corruption(FaultKind::kMisdirectedWrite, rng, duration_ns));
  }
  assert(crashes <= spec.crashes_max && crashes_in(plan) == crashes);
  assert(plan.faults.size() <= crashes + 5);  // at most one of each other kind
  assert(std::all_of(plan.faults.begin(), plan.faults.end(), drawn_well_formed));
  return plan;
}

}  // namespace wtsim::faults
