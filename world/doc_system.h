#pragma once
// The document engine as a System: engine lifecycle per node generation, the commit observer that
// feeds the model in WiredTiger's commit order, the checks it makes on every commit (exactly-once
// $inc, TTL safety), reads for recovery checks, validate, and metrics samples. Subclasses add the
// schema and the client actors of a workload.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "properties/lock_holders.h"
#include "properties/oplog_bound.h"
#include "properties/write_reference.h"
#include "world/documents_ops.h"
#include "world/system.h"
#include "world/node_context.h"
#include "world/run_context.h"
#include "world/script_command.h"

namespace wtsim::world {

class HotBackupActor;

class DocSystem : public System, public engine::CommitObserver {
 public:
  // Takes the backup account's hot backup too when backup.member names this node
  // (world/hot_backup_actor.h): its sentinel, pins, busy phase and liveness are handled here.
  DocSystem(RunContext& run, NodeContext& host);
  ~DocSystem() override;

  int open(WT_CONNECTION* conn) override;
  int read_state(WT_CONNECTION* conn, models::KvState* out) override;
  std::vector<properties::Finding> validate(WT_CONNECTION* conn) override;
  void close() override;
  nlohmann::json sample_metrics() override;
  std::vector<properties::Finding> take_findings() override;
  std::vector<properties::Marker> busy_phases() const override;
  void before_open() override;
  void after_open(WT_CONNECTION* conn) override;
  engine::DocumentEngine* engine() override { return engine_.get(); }
  int read_oplog_ids(WT_CONNECTION* conn, std::vector<OplogId>* out) override;

  uint64_t before_commit(const std::vector<engine::DocWrite>& writes, bool durable) override;

  static std::string model_key(std::string_view ns, const engine::Document& id) { return model_key_prefix(ns) + id.dump(); }
  static std::string model_key_prefix(std::string_view ns) { return std::string(ns) + "|"; }  // every key of `ns`
  uint64_t before_catalog_commit(std::string_view ns, std::string_view row) override;
  uint64_t before_drop_commit(std::string_view ns, const std::vector<engine::Document>& ids) override;
  nlohmann::json commit_details(const std::vector<engine::DocWrite>& writes);
  size_t ttl_indexes(std::string_view ns) const;
  // The model's key for a collection's catalog row (no collection namespace starts "table:").
  static std::string catalog_key(std::string_view ns) { return std::string(engine::Catalog::kUri) + "|" + std::string(ns); }
  void after_commit(uint64_t ticket, int ret) override;
  void after_flush(const std::vector<uint64_t>& tickets, int ret) override;

 protected:
  // Creates the workload's collections and indexes (idempotent: runs at every start).
  virtual engine::Status create_schema(engine::OperationContext& op) = 0;
  // A client's write command, through RunContext::node_call; its success is the client's progress.
  template <class Call>
  engine::WriteResult write(const char* what, Call&& call) {
    engine::WriteResult r = host_.node_call(what, std::forward<Call>(call));
    if (r.status.ok()) run_.note_progress();
    return r;
  }
  // The same for a client's write command, which writes_follow_commands judges at each of its
  // commits (properties/write_reference.h).
  template <class Call>
  engine::WriteResult write(const char* what, properties::WriteCommand command, Call&& call) {
    const CommandScope scope(*this, command);
    return write(what, std::forward<Call>(call));
  }
  void finding(properties::Property property, const std::string& detail);
  // One operation of the "documents" workload on this node (world/documents_ops.cpp): the
  // command's status (an engine code such as no such index is an answer, not a failure).
  engine::Status run_documents_op(engine::OperationContext& op, const DocumentsOp& d);
  // A script step's document command (is_document_command) on this node (script_command.cpp):
  // writes through write(), finds checked against the model (check_find).
  ScriptReply script_command(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& args);
  // A find's documents against the model (read_check.cpp): each matches the filter's equality
  // fields and is a version the find's snapshot may see (reads_see_committed), and none it had to
  // return is missing (finds_return_every_match). `read_token` is the model's begin_read() from
  // before the find started.
  void check_find(std::string_view ns, const engine::FindRequest& req, const std::vector<engine::Document>& docs,
                  uint64_t read_token);
  // Trims the oplog to its size once a virtual second, as MongoDB's oplog truncation does.
  void spawn_oplog_trimmer(const std::string& suffix);
  // Starts the hot backup's actor if this node takes one that is still due.
  void spawn_backup(const std::string& suffix);
  // What the hot backup this node takes has not done yet ("" if nothing, or none).
  std::string backup_pending() const;
  bool backup_copying() const;
  // Whether this node was a primary when the TTL pass whose delete commits now began: what
  // ttl_safety judges a TTL delete on (a single node's is its ttl.role, fixed for the run).
  virtual bool ttl_deleter_was_primary() const { return host_.member() == 0 && run_.scenario().ttl.primary; }

  RunContext& run_;
  NodeContext& host_;
  std::unique_ptr<engine::DocumentEngine> engine_;
  // Per collection, the updates this node has seen: a hot backup copies the hottest first.
  std::map<std::string, uint64_t> rewrites_;

  // Waits while the hot backup fixes its point in time or releases a table, then counts the
  // commit in flight (until after_commit, or end_commit for one outside the observer).
  void begin_commit() override;
  void end_commit() override;

 private:
  // The write command the current fiber runs, while it runs.
  class CommandScope {
   public:
    CommandScope(DocSystem& system, properties::WriteCommand& command);
    ~CommandScope();
    CommandScope(const CommandScope&) = delete;
    CommandScope& operator=(const CommandScope&) = delete;

   private:
    DocSystem& system_;
    uint64_t fiber_id_;
  };

  ScriptReply script_write(engine::OperationContext& op, const std::string& cmd, const nlohmann::json& args);
  ScriptReply script_find_and_modify(engine::OperationContext& op, const nlohmann::json& args);
  ScriptReply list_indexes(const std::string& ns);
  void ack(uint64_t ticket);
  void check_increment(const std::string& key, const engine::DocWrite& w);
  int read_documents(WT_CONNECTION* conn, models::KvState* out);
  int check_tables_named();
  void check_oplog(WT_CONNECTION* conn, std::vector<properties::Finding>* problems);
  std::optional<uint64_t> oplog_end(engine::OperationContext& op, bool newest);
  void check_ttl_delete(const engine::DocWrite& w);
  void check_command_write(const engine::DocWrite& w);
  std::optional<properties::Finding> new_conflicting_grants();
  int64_t command_increment_of_n() const;
  void check_index_keys(engine::OperationContext& op, const engine::CollectionSpec& coll, std::vector<properties::Finding>* problems);
  void count_coverage(engine::DocumentEngine& e);

  std::unique_ptr<engine::OperationContext> op_;
  std::map<uint64_t, bool> durable_;       // ticket -> durable, until acknowledged
  std::map<std::string, int64_t> last_n_;  // key -> counter of the last committed image
  std::map<uint64_t, properties::WriteCommand*> commands_;  // fiber id -> the write command it runs
  std::map<std::string, int64_t> last_ttl_bound_ms_;  // actor -> bound of its last TTL delete (trace)
  std::vector<properties::Finding> findings_;
  std::unique_ptr<HotBackupActor> backup_;  // null unless this node takes the hot backup
  uint64_t commits_in_flight_ = 0;          // between before_commit and after_commit (this generation)
  uint64_t conflicting_grants_reported_ = 0;  // lock_safety's count already reported (this generation)
  properties::LockHolders lock_holders_;      // lock_safety's own list of who holds what (this generation)
  properties::OplogBoundJudge oplog_bound_;    // oplog_within_bound, over the trimmer's passes
};

// Adds a record-store value to a model state (read_state, restore checks).
void put_record(models::KvState* state, const engine::CollectionSpec& coll, const void* data, size_t size);
// Adds every record of a collection's table to a model state; 0 or WiredTiger's error.
int put_collection(engine::OperationContext& op, const engine::CollectionSpec& coll, models::KvState* state);
// Adds every catalog row, as stored, to a model state (read_state, restore checks).
int put_catalog_rows(engine::OperationContext& op, models::KvState* state);

std::unique_ptr<System> make_mixed_doc_system(RunContext& run, NodeContext& host);
std::unique_ptr<System> make_time_series_system(RunContext& run, NodeContext& host);
std::unique_ptr<System> make_padding_system(RunContext& run, NodeContext& host);
std::unique_ptr<System> make_backup_system(RunContext& run, NodeContext& host);
std::unique_ptr<System> make_script_system(RunContext& run, NodeContext& host);
// A replica set member other than the primary, replicating from `source` (secondary_system.cpp).
class SyncSource;
std::unique_ptr<System> make_secondary_system(RunContext& run, NodeContext& host, SyncSource& source);
// A member of a replica set with elections, which may become its primary (electable_system.cpp).
class ReplicaSet;
std::unique_ptr<System> make_electable_system(RunContext& run, NodeContext& host, SyncSource& source, ReplicaSet& set);

}  // namespace wtsim::world
