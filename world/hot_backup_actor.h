#pragma once
// The backup account's hot backup (shared/seeds/002), as the actor of whichever node runs it: the
// primary of a single node, or a replica set member that keeps applying the primary's oplog
// meanwhile (backup.member; the account's deployments back up a hidden secondary). In baseline
// mode a backup cursor is held for the whole copy; in release mode a named checkpoint per table
// is dropped as soon as its file is copied, the oplog released first and never copied, tables
// copied hottest first. The backup.in_progress sentinel protocol makes a node that crashed
// mid-backup do a normal crash recovery. The copy goes to a second simulated device; a completed
// backup is restored there and checked against the node's model at the backup's point in time.
#include <wiredtiger.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "faults/disk.h"
#include "properties/violation.h"
#include "world/node_context.h"
#include "world/run_context.h"

namespace wtsim::world {

class HotBackupActor {
 public:
  using Finding = std::function<void(properties::Property, const std::string&)>;
  // `engine`: the node's engine (the owner's, replaced at each start); `rewrites`: per
  // collection, the updates the node has seen (the expansion-rate estimate that orders the copy).
  // `commits_in_flight`: the node's commits between their model entry and WiredTiger's answer.
  HotBackupActor(RunContext& run, NodeContext& host, const std::unique_ptr<engine::DocumentEngine>& engine,
                 const std::map<std::string, uint64_t>& rewrites, const uint64_t& commits_in_flight, Finding finding)
      : run_(run), host_(host), engine_(engine), rewrites_(rewrites), commits_in_flight_(commits_in_flight), finding_(std::move(finding)) {}

  // The actor's body: waits for backup.start_ms, then copies, releases and checks the restore.
  void run();
  bool due() const;  // not yet run, not abandoned: a start spawns the actor again
  bool copying() const { return copying_; }
  // While the backup fixes its point in time (the model's state and WiredTiger's checkpoint) or
  // releases a table, the node begins no commit: the checkpoint then holds exactly the model's
  // state, and a release's checkpoint every commit logged before it.
  bool holds_commits() const { return holding_commits_; }
  std::string liveness_pending() const;
  // The sentinel protocol around WiredTiger's open (System::before_open, after_open).
  void before_open();
  void after_open(WT_CONNECTION* conn);
  // After a backup, finished or abandoned, no table may keep the backup's checkpoint.
  void check_no_pins(WT_CONNECTION* conn, std::vector<properties::Finding>* problems);

 private:
  void report_stale_pins(WT_CONNECTION* conn);
  std::vector<std::string> pinned_tables(WT_CONNECTION* conn);
  void create_sentinel();
  void remove_sentinel();
  uint64_t copy_file(const std::string& name);
  static std::vector<std::string> tables_of(const engine::CollectionSpec& coll);
  // `files`: what the backup cursor listed (a member's own tables are copied if they exist).
  std::vector<std::pair<std::string, std::string>> tables_in_order(const std::vector<std::string>& files);
  void abandon(engine::OperationContext& op, sim::Nanos start_ns);
  // Runs `step` once no commit is in flight, before any other begins (the node's oplog trim too).
  int with_commits_held(const std::function<int()>& step);
  // The model's state once no commit is in flight, and `checkpoint` run before any other begins.
  int point_in_time(models::KvState* expected, const std::function<int()>& checkpoint);
  // Drops the backup's checkpoint from one table, with no commit in between (see the .cpp).
  int release(engine::OperationContext& op, const std::string& table_uri);
  int baseline_backup(engine::OperationContext& op, models::KvState* expected, uint64_t* copied);
  int release_backup(engine::OperationContext& op, models::KvState* expected, uint64_t* copied);
  int release_tables(engine::OperationContext& op, uint64_t* copied);
  void check_restore(const models::KvState& expected);
  int read_restored(WT_CONNECTION* conn, models::KvState* out, bool first);
  void restore_checked(const models::KvState& restored, bool ok, int round);
  void restore_unreadable(const std::string& error, int round);
  void restore_failed(const std::string& detail) { finding_(properties::Property::kBackupRestoresSnapshot, detail); }
  // A backup event; another member's say which member.
  void event(const std::string& actor, const char* kind, nlohmann::json details);

  RunContext& run_;
  NodeContext& host_;
  const std::unique_ptr<engine::DocumentEngine>& engine_;
  const std::map<std::string, uint64_t>& rewrites_;
  const uint64_t& commits_in_flight_;
  Finding finding_;
  std::unique_ptr<faults::Disk> destination_;
  std::vector<std::string> restored_tables_;
  uint64_t snapshot_seq_ = 0;  // the last commit the backup's point in time includes
  uint64_t peak_disk_ = 0;
  int copy_error_ = 0;
  bool done_ = false;
  bool copying_ = false;
  bool holding_commits_ = false;
};

}  // namespace wtsim::world
