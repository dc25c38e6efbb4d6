#include "faults/fault_plan.h"

#include "sim/json_reader.h"

namespace wtsim::faults {
namespace {

using nlohmann::json;
using sim::kNsPerMs;

constexpr FaultKind kAllKinds[] = {FaultKind::kCrash,    FaultKind::kIoError,
                                   FaultKind::kDiskFull, FaultKind::kBitFlip,
                                   FaultKind::kMisdirectedWrite, FaultKind::kLatency,
                                   FaultKind::kLyingSync};

FaultKind kind_from(const std::string& s, const std::string& path) {
  for (FaultKind k : kAllKinds) {
    if (s == to_string(k)) return k;
  }
  throw sim::JsonError(path, "unknown fault kind \"" + s +
                                 "\" (expected crash, io_error, disk_full, bit_flip, "
                                 "misdirected_write, latency or lying_sync)");
}

DiskOp op_from(const std::string& s, const std::string& path) {
  for (DiskOp op : {DiskOp::kRead, DiskOp::kWrite, DiskOp::kSync}) {
    if (s == to_string(op)) return op;
  }
  throw sim::JsonError(path, "unknown disk op \"" + s + "\" (expected read, write or sync)");
}

CrashAnchor anchor_from(const std::string& s, const std::string& path) {
  for (CrashAnchor a : {CrashAnchor::kCheckpointStart, CrashAnchor::kLogSwitch, CrashAnchor::kEvictionPass, CrashAnchor::kRollback}) {
    if (s == to_string(a)) return a;
  }
  throw sim::JsonError(path, "unknown event \"" + s + "\" (expected checkpoint_start, log_switch, eviction_pass or rollback)");
}

// {"event": "checkpoint_start", "nth": 1, "disk_ops": 5}
Anchor read_anchor(const json& j, const std::string& path) {
  sim::ObjectReader r(j, path);
  Anchor a;
  a.event = anchor_from(r.string("event"), r.path_of("event"));
  a.nth = r.u64_or("nth", a.nth);
  a.disk_ops = r.u64_or("disk_ops", a.disk_ops);
  sim::check_bounds(a.nth >= 1, r.path_of("nth"), "at least 1");
  sim::check_bounds(a.disk_ops <= 1'000'000, r.path_of("disk_ops"), "at most 1000000");
  r.reject_unknown();
  return a;
}

void read_trigger(sim::ObjectReader& r, Fault& f, bool time_ok, bool count_ok) {
  if (time_ok && r.has("at_ms")) f.at_ns = static_cast<sim::Nanos>(r.u64("at_ms")) * kNsPerMs;
  if (count_ok && r.has("at_disk_op")) {
    f.at_disk_op = r.u64("at_disk_op");
    if (*f.at_disk_op == 0) throw sim::JsonError(r.path_of("at_disk_op"), "counts from 1");
  }
  if (f.kind == FaultKind::kCrash && r.has("after")) {
    f.after = read_anchor(*r.optional("after"), r.path_of("after"));
    if (f.at_ns || f.at_disk_op) throw sim::JsonError(r.path_of("after"), "an anchored crash has no at_ms or at_disk_op");
  }
  if (!f.at_ns && !f.at_disk_op && !f.after) {
    throw sim::JsonError(r.path(), std::string("needs a trigger: ") +
                                       (f.kind == FaultKind::kCrash ? "at_ms, at_disk_op or after"
                                        : time_ok && count_ok         ? "at_ms or at_disk_op"
                                        : time_ok           ? "at_ms"
                                                            : "at_disk_op"));
  }
}

void read_window(sim::ObjectReader& r, Fault& f) {
  read_trigger(r, f, true, false);
  f.until_ns = static_cast<sim::Nanos>(r.u64("until_ms")) * kNsPerMs;
  if (f.until_ns <= *f.at_ns) throw sim::JsonError(r.path_of("until_ms"), "must be after at_ms");
}

}  // namespace

const char* to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCrash: return "crash";
    case FaultKind::kIoError: return "io_error";
    case FaultKind::kDiskFull: return "disk_full";
    case FaultKind::kBitFlip: return "bit_flip";
    case FaultKind::kMisdirectedWrite: return "misdirected_write";
    case FaultKind::kLatency: return "latency";
    case FaultKind::kLyingSync: return "lying_sync";
  }
  return "?";
}

const char* to_string(CrashAnchor anchor) {
  switch (anchor) {
    case CrashAnchor::kCheckpointStart: return "checkpoint_start";
    case CrashAnchor::kLogSwitch: return "log_switch";
    case CrashAnchor::kEvictionPass: return "eviction_pass";
    case CrashAnchor::kRollback: return "rollback";
  }
  return "?";
}

const char* to_string(DiskOp op) {
  switch (op) {
    case DiskOp::kRead: return "read";
    case DiskOp::kWrite: return "write";
    case DiskOp::kSync: return "sync";
  }
  return "?";
}

json to_json(const Fault& f) {
  json j{{"kind", to_string(f.kind)}};
  if (f.at_ns) j["at_ms"] = *f.at_ns / kNsPerMs;
  if (f.at_disk_op) j["at_disk_op"] = *f.at_disk_op;
  if (f.after) j["after"] = {{"event", to_string(f.after->event)}, {"nth", f.after->nth}, {"disk_ops", f.after->disk_ops}};
  switch (f.kind) {
    case FaultKind::kCrash:
      j["mode"] = to_string(f.crash_mode);
      break;
    case FaultKind::kIoError:
      j["op"] = to_string(f.op);
      j["file"] = f.file;
      j["sticky"] = f.sticky;
      if (f.op == DiskOp::kSync) j["drop_dirty"] = f.drop_dirty;
      break;
    case FaultKind::kDiskFull:
      j["until_ms"] = f.until_ns / kNsPerMs;
      j["capacity_bytes"] = f.capacity_bytes;
      break;
    case FaultKind::kBitFlip:
      j["file"] = f.file;
      j["offset"] = f.offset;
      j["bit"] = f.bit;
      break;
    case FaultKind::kMisdirectedWrite:
      j["file"] = f.file;
      j["misdirect_bytes"] = f.misdirect_bytes;
      break;
    case FaultKind::kLatency:
      j["until_ms"] = f.until_ns / kNsPerMs;
      j["factor"] = f.factor;
      break;
    case FaultKind::kLyingSync:
      j["file"] = f.file;
      break;
  }
  return j;
}

json to_json(const FaultPlan& plan) {
  json faults = json::array();
  for (const Fault& f : plan.faults) faults.push_back(to_json(f));
  return faults;
}

Fault fault_from_json(const json& j, const std::string& path) {
  sim::ObjectReader r(j, path);
  Fault f;
  f.kind = kind_from(r.string("kind"), r.path_of("kind"));
  switch (f.kind) {
    case FaultKind::kCrash: {
      read_trigger(r, f, true, true);
      const std::string mode = r.string_or("mode", "drop_unsynced");
      auto m = crash_mode_from_string(mode);
      if (!m) {
        throw sim::JsonError(r.path_of("mode"), "unknown crash mode \"" + mode +
                                                    "\" (expected drop_unsynced, torn_prefix "
                                                    "or sector_damage)");
      }
      f.crash_mode = *m;
      break;
    }
    case FaultKind::kIoError:
      read_trigger(r, f, false, true);
      f.op = op_from(r.string("op"), r.path_of("op"));
      f.file = r.string_or("file", "");
      f.sticky = r.bool_or("sticky", false);
      f.drop_dirty = r.bool_or("drop_dirty", false);
      break;
    case FaultKind::kDiskFull:
      read_window(r, f);
      f.capacity_bytes = r.u64("capacity_bytes");
      break;
    case FaultKind::kBitFlip:
      read_trigger(r, f, true, false);
      f.file = r.string("file");
      f.offset = r.u64_or("offset", 0);
      f.bit = static_cast<int>(r.u64_or("bit", 0) % 8);
      break;
    case FaultKind::kMisdirectedWrite:
      read_trigger(r, f, false, true);
      f.file = r.string_or("file", "");
      f.misdirect_bytes = r.u64_or("misdirect_bytes", 4096);
      break;
    case FaultKind::kLatency:
      read_window(r, f);
      f.factor = r.number_or("factor", 10.0);
      sim::check_bounds(f.factor >= 1.0, r.path_of("factor"), ">= 1");
      break;
    case FaultKind::kLyingSync:
      read_trigger(r, f, true, false);
      f.file = r.string_or("file", "");
      break;
  }
  r.reject_unknown();
  return f;
}

FaultPlan plan_from_json(const json& j, const std::string& path) {
  if (!j.is_array()) throw sim::JsonError(path, "expected an array of faults, found " + sim::describe(j));
  FaultPlan plan;
  for (size_t i = 0; i < j.size(); ++i) {
    plan.faults.push_back(fault_from_json(j[i], path + "/" + std::to_string(i)));
  }
  return plan;
}

}  // namespace wtsim::faults
