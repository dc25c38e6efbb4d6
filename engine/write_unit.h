#pragma once
// A unit of work: one document (or one group of new documents) written in one WiredTiger
// transaction with its index entries and oplog entry, under the collection's locks, retried on
// write conflicts with MongoDB's backoff, its virtual cost paid inside the transaction. The
// commit observer learns each commit's order and fate.
#include <cassert>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_state.h"
#include "engine/oplog.h"
#include "engine/operation_context.h"

namespace wtsim::engine {

// The commits of one command, and whether the command waits for the journal (j:true): the flush
// at its end makes every ticket durable.
struct CommitTickets {
  bool durable = false;
  std::vector<uint64_t> ids;
};

// The document a unit of work changes.
struct WriteTarget {
  const CollectionSpec& coll;
  std::string rkey;  // empty: a new document of a padded collection (its _id index checks uniqueness)
  // A delete whose mutation reads only these top-level fields (and whose indexes need no
  // others) passes them, and the current document is decoded only that far.
  const std::vector<std::string>* view_fields = nullptr;
};

struct WriteOutcome {
  Status status;  // a WiredTiger failure; engine errors (duplicate key, ...) are in `error`
  WriteError error;
  bool changed = false;  // the unit of work committed a change
};

// Index maintenance of one record: before and after images (nullptr: absent) and the record's
// key before and after (they differ when a padded record moved).
struct IndexChange {
  const std::string& old_rkey;
  const std::string& new_rkey;
  const Document* before = nullptr;
  const Document* after = nullptr;
};

class WriteUnit {
 public:
  static constexpr int kMaxConflictRetries = 1'000'000;  // MongoDB has no limit; we bound it

  // Inside one unit of work: sees the current document (nullopt if absent), decides the next.
  using Mutation = std::function<int(const std::optional<Document>& current, std::optional<Document>* next, WriteError* error)>;

  WriteUnit(EngineState& state, Oplog& oplog) : state_(state), oplog_(oplog) {}

  WriteOutcome write_one(OperationContext& op, const WriteTarget& target, const Mutation& mutate, CommitTickets& tickets);
  // New documents in one unit of work. *fallback when one of them cannot go in (duplicate key):
  // the caller then inserts them one at a time.
  int insert_group(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                   CommitTickets& tickets, bool* fallback);
  // The journal flush a j:true command waits for (nothing to do otherwise). WiredTiger's code.
  int finish_durable(OperationContext& op, const CommitTickets& tickets);
  // Only the keys that change, or, when the record moved, every key. In the caller's transaction.
  int apply_indexes(OperationContext& op, const CollectionSpec& coll, const IndexChange& change, WriteError* error,
                    size_t* keys_written = nullptr);
  // A padded record is between its old and new slot (a crash now is a crash mid-move).
  bool moving() const { return moves_in_flight_ > 0; }

 private:
  // A write's record bytes, encoded once: the next image's BSON (record, oplog, model and cost
  // all use it) and the current record's stored size.
  struct RecordBytes {
    std::vector<uint8_t> next;
    size_t current_stored = 0;
  };
  // A record's images (nullptr: absent), by pointer, never copied.
  struct RecordChange {
    const Document* current = nullptr;
    const Document* next = nullptr;
    const RecordBytes& bytes;
  };
  // Where a written record went, and how its stored size changed.
  struct RecordPlacement {
    std::string rkey;  // differs from the old key when a padded record moved; empty: removed
    int64_t size_delta = 0;
  };
  // A capped collection's oldest document, deleted in the unit of work of the insert that took the
  // collection past capped_max_docs.
  struct Trimmed {
    std::string rkey;
    Document doc;
    size_t stored_bytes = 0;
  };
  // One attempt's images. While a padded record is between slots it counts in moves_in_flight_.
  struct Attempt {
    explicit Attempt(const std::string& rkey) { placement.rkey = rkey; }
    Attempt(const Attempt&) = delete;
    Attempt& operator=(const Attempt&) = delete;
    ~Attempt() {
      if (moves_in_flight != nullptr) --*moves_in_flight;
    }
    void mark_moving(int& in_flight) {
      assert(moves_in_flight == nullptr);
      ++in_flight;
      moves_in_flight = &in_flight;
    }
    bool moved(const std::string& rkey) const { return current && next && placement.rkey != rkey; }
    const Document* current_doc() const { return current ? &*current : nullptr; }
    const Document* next_doc() const { return next ? &*next : nullptr; }

    std::optional<Document> current, next;
    RecordBytes bytes;
    RecordPlacement placement;
    size_t keys_written = 0;
    std::vector<Trimmed> trimmed;
    int* moves_in_flight = nullptr;
  };

  // One attempt of write_one; WiredTiger's code is translated into the outcome's status here,
  // once: the steps below it (stage, commit, the record and index writes) speak WiredTiger's ints.
  WriteOutcome write_attempt(OperationContext& op, const WriteTarget& target, const Mutation& mutate, CommitTickets& tickets);
  // Whether `coll` (a spec an operation took before it yielded) was dropped since (or dropped and
  // created again: another table).
  bool dropped(const CollectionSpec& coll) const;
  // Reads, mutates, and writes record, index entries and oplog entry; pays the cost.
  int stage(OperationContext& op, const WriteTarget& target, const Mutation& mutate, Attempt* a, WriteOutcome* out);
  int commit_attempt(OperationContext& op, const WriteTarget& target, Attempt& a, CommitTickets& tickets);
  // Writes (or removes, when `next` is null) the record at `rkey`; a padded record may move.
  int apply_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey, const RecordChange& change,
                   RecordPlacement* out);
  int apply_padded_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey,
                          const RecordChange& change, RecordPlacement* out);
  // Deletes the oldest documents (natural order, before `inserted`) while the collection holds more
  // than capped_max_docs with the new one. No oplog entry: every member trims its own, as MongoDB's.
  int trim_capped(OperationContext& op, const CollectionSpec& coll, const std::string& inserted, std::vector<Trimmed>* out);
  int insert_group_attempt(OperationContext& op, const CollectionSpec& coll, const std::vector<Document*>& group,
                           CommitTickets& tickets, bool* fallback);
  // Writes one new document of a group: *fallback when it cannot go in.
  int stage_group_member(OperationContext& op, const CollectionSpec& coll, const Document& doc,
                         const RecordBytes& bytes, bool* fallback);
  void pay_write_cost(size_t bytes, size_t documents);
  void backoff_after_conflict(int attempt);
  void reuse_first_read(std::optional<Document>* current);  // a planted bug (sim/planted.h)

  EngineState& state_;
  Oplog& oplog_;
  int moves_in_flight_ = 0;
  std::optional<std::optional<Document>> planted_first_read_;  // kRetryUsesStaleDocument only
};

}  // namespace wtsim::engine
