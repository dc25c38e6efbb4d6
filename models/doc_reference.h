#pragma once
// A reference document store for model-based tests: the collections as plain ordered maps, with
// MongoDB's semantics for the operations the tests use, written independently of the engine.
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace wtsim::models {

class DocReference {
 public:
  using Doc = nlohmann::json;
  using Collection = std::map<std::string, Doc>;  // by _id's JSON text

  // False (and no change) if a document with that _id exists.
  bool insert(const std::string& ns, const Doc& doc);
  // {$inc: {field: by}} on the document with `id`; with upsert, creates {_id, field: by}.
  // Returns the number of documents matched (0 or 1) and whether one was upserted.
  int inc(const std::string& ns, const Doc& id, const std::string& field, int64_t by, bool upsert, bool* upserted);
  bool remove(const std::string& ns, const Doc& id);
  // findAndModify of the first document whose `field` equals `value` in _id order (`direction`
  // 1) or its reverse (-1): $inc of "n" by `by`, or its removal. Returns that document before
  // the change (after it with `return_new`), or null when none matches.
  Doc find_and_modify(const std::string& ns, const std::string& field, const Doc& value, int direction, bool remove, int64_t by,
                      bool return_new);
  // Documents whose `field` equals `value` (or holds it in an array), in _id order.
  std::vector<Doc> find_eq(const std::string& ns, const std::string& field, const Doc& value) const;
  const Collection& collection(const std::string& ns) const;

 private:
  std::map<std::string, Collection> collections_;
};

}  // namespace wtsim::models
