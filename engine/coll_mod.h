#pragma once
// collMod's index option as MongoDB 3.4 checks it (docs/design/mongodb-rules.md, section 1; the
// codes are 3.2.12's and 3.4's): the index named by its key pattern or by its name (exactly one),
// a numeric expireAfterSeconds, an index that is a TTL index with a numeric value. Each refusal
// is MongoDB's code and errmsg, and leaves the index as it was. The new value is stored as a whole
// number (WiredTiger's catalog stores a NumberLong, cut toward zero: 1.9 is 1); the reply holds
// expireAfterSeconds_old and _new (the request's value as given) only when the value changed.
// The flags usePowerOf2Sizes and noPadding are set as given (3.4 writes them whether they
// change or not), after the index option.
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
  bool index = true;  // the request has the index option (false: collection flags alone)
  // The collection flags (userFlags 1 and 2), each as its trueValue: 3.4 replies <name>_old and
  // <name>_new for each one given, changed or not.
  std::optional<Document> use_power_of_2_sizes = std::nullopt;
  std::optional<Document> no_padding = std::nullopt;
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
  std::optional<bool> power_of_2_sizes, no_padding;  // the flags to write
};
CollModPlan plan_coll_mod(const CollectionSpec& coll, const CollModRequest& request);

}  // namespace wtsim::engine
