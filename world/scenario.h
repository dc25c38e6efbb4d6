#pragma once
// A scenario file: what to run (duration, node knobs, workload) and which faults may happen,
// either as an explicit fault plan or as a swarm spec a seed draws a plan from.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "engine/cost_model.h"
#include "engine/lock_manager.h"
#include "engine/mmap_allocator.h"
#include "faults/fault_plan.h"
#include "faults/fault_swarm.h"
#include "sim/virtual_clock.h"
#include "world/knobs.h"
#include "world/replica_set_spec.h"
#include "world/script.h"

namespace wtsim::world {

// The scenario's modes, parsed once when it is read (a bad name is refused there, with its path).
enum class WorkloadKind { kKv, kDocuments, kTimeSeries, kPadding, kBackup, kScript };  // kScript: the scenario's steps
enum class RecordStore { kWiredTiger, kMmapv1 };          // mmapv1: padded records
enum class PaddingVariant { kGrow, kPreset };             // {_id} then $inc new fields, or preset
enum class TtlMode { kIndex, kManual, kNone };            // TTL monitor, a deleteMany job, neither
enum class BackupMode { kRelease, kBaseline, kNone };     // per-table release, a backup cursor
enum class BackupOrder { kHottestFirst, kColdestFirst, kName };  // by writes so far, or by name
enum class QueryLoop { kOff, kEvery, kBackToBack };      // the TTL query loop: none, one per period, back to back
// As the scenario file spells them.
const char* to_string(WorkloadKind v);
const char* to_string(RecordStore v);
const char* to_string(PaddingVariant v);
const char* to_string(TtlMode v);
const char* to_string(BackupMode v);
const char* to_string(BackupOrder v);
const char* to_string(QueryLoop v);

struct NodeSpec {
  uint64_t cache_mb = 64;
  uint64_t log_file_max_kb = 0;  // 0: WiredTiger's default (100 MB); smaller files switch often
  sim::Nanos checkpoint_interval_ns = 60 * sim::kNsPerSec;
  sim::Nanos journal_commit_interval_ns = 100 * sim::kNsPerMs;
  sim::Nanos metrics_interval_ns = sim::kNsPerSec;  // 0: no metrics time series
  engine::LockPolicy lock_policy = engine::LockPolicy::kDocument;  // document (WiredTiger) or collection (MMAPv1)
  RecordStore record_store = RecordStore::kWiredTiger;            // "documents" only
  bool oplog = true;
  uint64_t oplog_max_entries = 100'000;
};

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::kKv;
  uint64_t writers = 3;
  uint64_t keys = 500;
  sim::Nanos think_ns = 5 * sim::kNsPerMs;  // mean pause between a writer's commits
  double durable_fraction = 0.5;
  double delete_fraction = 0.1;
  uint64_t keys_per_txn_max = 3;
  uint64_t value_bytes_min = 16;
  uint64_t value_bytes_max = 200;
  // "documents" only: the mix of operations (weights) and the bulk-insert batch size.
  uint64_t insert_weight = 4, update_weight = 4, delete_weight = 1, find_weight = 2;
  // DDL while the clients write: createIndex, dropIndex or collMod of an index no restart
  // re-creates, so a lost acknowledged catalog change shows (0: none).
  uint64_t ddl_weight = 0;
  uint64_t batch_size = 10;
  uint64_t total_documents = 0;  // > 0: each writer inserts its share of this many, then stops
  // "documents" only: each inserted document carries `at`, a Date (its client's clock), and the
  // collection a TTL index on it (ttl.expire_after_s) that the primary's TTL monitor expires.
  bool ttl_index = false;
  sim::Nanos stop_inserts_at_ns = 0;  // "time_series" only: > 0, inserts stop at this time
  PaddingVariant padding_variant = PaddingVariant::kGrow;  // "padding" only
  bool power_of_2_sizes = false;         // "padding" only: the collection's usePowerOf2Sizes
  // "padding" only: whose paddingFactor rules ("padding_heuristic": "2.6" or "1.x")
  engine::MmapAllocator::PaddingRules padding_rules = engine::MmapAllocator::PaddingRules::kV26;
};

// The TTL experiments (kind "time_series"): how old documents go away. Times are read from the
// file's _s and _ms fields into nanoseconds.
struct TtlSpec {
  TtlMode mode = TtlMode::kIndex;
  sim::Nanos expire_after_ns = 300 * sim::kNsPerSec;  // expireAfterSeconds (whole seconds)
  sim::Nanos monitor_sleep_ns = 60 * sim::kNsPerSec;  // ttlMonitorSleepSecs
  bool monitor_enabled = true;       // ttlMonitorEnabled
  sim::Nanos manual_every_ns = 60 * sim::kNsPerSec;  // the manual job's period
  sim::Nanos index_at_ns = 0;        // > 0: the index is created this late (the backlog case)
  bool primary = true;               // false: the node is a secondary (TTL deletes nothing)
  QueryLoop query_loop = QueryLoop::kOff;  // find().sort({created_at: 1}).limit(1) with explain
  sim::Nanos query_every_ns = 0;     // the period of QueryLoop::kEvery
  sim::Nanos query_client_ns = 2500 * sim::kNsPerUs;  // QueryLoop::kBackToBack: the shell's round trip
  sim::Nanos touch_every_ns = 0;     // > 0: a client moves a random document's created_at to now
};

// Hot backup (kind "backup"): how and when the node is backed up.
struct BackupSpec {
  BackupMode mode = BackupMode::kRelease;
  sim::Nanos start_ns = 120 * sim::kNsPerSec;
  bool sentinel = true;                // backup.in_progress protocol
  BackupOrder order = BackupOrder::kHottestFirst;
  uint64_t copy_kb_per_s = 50'000;     // the copy's bandwidth (virtual; 1 KB = 1000 bytes)
  uint64_t destination_mb = 0;         // > 0: the backup device's capacity (ENOSPC beyond it)
  // The four collections: documents loaded at the start, and how many think times the warm and
  // append-only writers wait between writes (the hot one writes every think time; cold never).
  uint64_t hot_docs = 200;
  uint64_t warm_docs = 2000;
  uint64_t cold_docs = 4000;
  uint64_t append_docs = 0;
  uint64_t warm_every = 8;
  uint64_t append_every = 4;
  // The replica set member that runs the backup while the primary writes (0: the primary); the
  // accounts' deployments back up a hidden secondary. The file may say "hidden": the first hidden one.
  size_t member = 0;
  // Whether a backup runs: always with kind "backup"; with kind "documents" when the file has a
  // backup section (the hidden member of a replica set with elections backs up while it applies).
  bool enabled = false;
};

struct Scenario {
  std::string name;
  std::string description;
  sim::Nanos duration_ns = 10 * sim::kNsPerSec;  // the fault phase
  sim::Nanos liveness_ns = 0;  // > 0: then faults stop and the node must converge within this
  // Set: once a crashed node's recovery check has run, the fault phase ends this long after it
  // (the liveness phase and the final checks follow). Sweeps set it: what a crash point can break
  // shows in its recovery and soon after, and a child that runs on to the end costs the most.
  std::optional<sim::Nanos> end_after_recovery_ns;
  NodeSpec node;
  WorkloadSpec workload;
  TtlSpec ttl;
  BackupSpec backup;
  ReplicaSetSpec replica_set;  // one member unless the scenario gives more (replica_set_spec.h)
  std::optional<Script> script;  // `steps`: the workload is this script (WorkloadKind::kScript)
  engine::CostModel cost;
  std::optional<faults::FaultPlan> fault_plan;  // explicit plan, used as is
  faults::SwarmSpec swarm;                      // otherwise drawn per seed
  std::vector<KnobSpec> knobs;                  // drawn per seed (knobs.h), before the run
  bool buggify = false;                         // rare-but-legal engine switches (sim/buggify.h)
  nlohmann::json source;                        // the scenario as read, for the trace header
};

// Throws std::invalid_argument "FILE: /path: problem". `overrides` are "a.b=value" settings
// applied to the JSON before it is read (value parsed as JSON, else taken as a string).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});
// `origin` names the source in messages (a file name, or "trace header").
Scenario scenario_from_json(const nlohmann::json& j, const std::string& origin);
// Sets the field at a dotted path ("node.cache_mb") or a JSON pointer ("/knobs/node.cache_mb",
// for keys that hold dots), creating objects on the way. Throws std::invalid_argument starting
// with `what` if the path runs through a non-object.
void set_field(nlohmann::json& j, const std::string& path, nlohmann::json value, const std::string& what);

}  // namespace wtsim::world
