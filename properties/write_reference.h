#pragma once
// writes_follow_commands: every document a client's write command changed is judged against the
// command itself, by a reference of MongoDB's write semantics written apart from the engine's
// update code (engine/update_ops.cpp): the old version matched the command's filter, the new one
// is what the command's $set, $unset, $inc or replacement makes of it (an upsert's: of the
// filter's equality fields), an insert stores the document the client sent, and a command for one
// document changes at most one. The durability properties prove that what the engine said it
// wrote survives; this one proves that it wrote what the client asked for.
//
// Reference: the MongoDB manual's pages on query operators ($eq, $ne, $gt, $gte, $lt, $lte, $in,
// $exists; an array field matches when any element does), update operators ($set, $unset, $inc),
// replacement documents and upserts, as summarised in docs/semantics. A command the reference
// does not model (another operator, a path through an array) is not judged: never a false alarm.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/document.h"
#include "properties/violation.h"

namespace wtsim::properties {

// A client's write command as it sent it. The world keeps one per fiber while the command runs.
struct WriteCommand {
  enum class Kind { kInsert, kUpdate, kDelete, kFindAndModify };
  Kind kind = Kind::kUpdate;
  std::string ns;
  // The command's own filter and update, not copies: they outlive the command (the judging runs
  // inside it). An insert's documents are copied, since the engine takes them.
  const engine::Document* filter = &kNone;  // update, delete, findAndModify's query
  const engine::Document* update = &kNone;  // update, findAndModify (not remove)
  std::vector<engine::Document> docs;       // insert
  bool upsert = false;
  bool single = true;   // at most one document (update without multi, delete justOne, findAndModify)
  bool remove = false;  // findAndModify's remove
  uint64_t changed = 0;  // documents it changed so far (filled by check_write)

  static inline const engine::Document kNone = engine::Document::object();

  static WriteCommand make_insert(std::string ns, std::vector<engine::Document> docs);
  static WriteCommand make_update(std::string ns, const engine::Document& filter, const engine::Document& update, bool upsert, bool multi);
  static WriteCommand make_delete(std::string ns, const engine::Document& filter, bool just_one);
  // With `remove`, `update` is ignored.
  static WriteCommand make_find_and_modify(std::string ns, const engine::Document& query, const engine::Document& update, bool remove,
                                           bool upsert);
  // A temporary filter or update would dangle.
  static WriteCommand make_update(std::string, engine::Document&&, const engine::Document&, bool, bool) = delete;
  static WriteCommand make_update(std::string, const engine::Document&, engine::Document&&, bool, bool) = delete;
  static WriteCommand make_delete(std::string, engine::Document&&, bool) = delete;
  static WriteCommand make_find_and_modify(std::string, engine::Document&&, const engine::Document&, bool, bool) = delete;
  static WriteCommand make_find_and_modify(std::string, const engine::Document&, engine::Document&&, bool, bool) = delete;
};

// One document's committed change by `command`: `pre` null for a document created, `post` null
// for one deleted. Capped trims of an insert (a delete in an insert's unit) are not judged here.
std::optional<Finding> check_write(WriteCommand& command, const engine::Document* pre, const engine::Document* post);

// A document as a finding shows it: without its filler, cut to a few hundred characters.
std::string shown_briefly(const engine::Document& doc);

// The reference itself, exposed for its unit tests. Each returns nullopt when the input uses
// something it does not model.
namespace reference {
std::optional<bool> matches(const engine::Document& doc, const engine::Document& filter);
// The document `update` makes of `doc`; a null Document when MongoDB refuses the update.
std::optional<engine::Document> updated(const engine::Document& doc, const engine::Document& update);
// The document an upsert inserts before its update applies: the filter's equality fields.
std::optional<engine::Document> upsert_base(const engine::Document& filter);
bool same(const engine::Document& a, const engine::Document& b);  // equal, numbers' kinds included
// The value at a dotted path (null: missing). A path through an array, which MongoDB follows into
// every element, is not modelled.
struct PathValue {
  bool modelled = true;
  const engine::Document* value = nullptr;
};
PathValue value_at(const engine::Document& doc, const std::string& path);
// Whether `post` is what the operator update makes of `pre`, judged field by field without
// building the new document: only when every path is a top-level field and MongoDB accepts the
// update (nullopt otherwise). Agrees with same(*updated(pre, update), post) where it answers.
std::optional<bool> stored_by_flat_update(const engine::Document& pre, const engine::Document& update, const engine::Document& post);
}  // namespace reference

}  // namespace wtsim::properties
