#pragma once
// collMod's index option as MongoDB 3.4 checks it (docs/design/mongodb-rules.md, section 1; the
// codes are 3.2.12's and 3.4's): the index named by its key pattern or by its name (exactly one),
// a numeric expireAfterSeconds, an index that is a TTL index with a numeric value. Each refusal
// is MongoDB's code and errmsg, and leaves the index as it was. The new value is stored as a whole
// number (WiredTiger's catalog stores a NumberLong, cut toward zero: 1.9 is 1); the reply holds
// expireAfterSeconds_old and _new (the request's value as given) only when the value changed.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/catalog.h"
#include "engine/document.h"
#include "engine/status.h"

namespace wtsim::engine {

// The index sub-document's fields as given (any JSON value, or none): MongoDB checks their types.
struct CollModRequest {
  std::optional<Document> key_pattern;  // {"f": 1}, or [["a", 1], ["b", -1]] (an object loses a compound key's order)
  std::optional<Document> name;
  std::optional<Document> expire_after_seconds;
};

struct CollModResult {
  Status status;
  std::string message;                  // with an error: MongoDB's errmsg
  Document reply = Document::object();  // expireAfterSeconds_old / _new
};

// What collMod will do to `coll`: an error, or the index to change (its name) and the whole
// number to store; nullopt value when the value is unchanged (nothing is written).
struct CollModPlan {
  CollModResult result;
  std::string index;
  std::optional<int64_t> store;
};
CollModPlan plan_coll_mod(const CollectionSpec& coll, const CollModRequest& request);

}  // namespace wtsim::engine
