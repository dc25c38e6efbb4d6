#pragma once
// The document engine's properties judged one event at a time, as pure functions over what the
// event carries and the model: ttl_safety (each TTL delete), increments_counted_once (each
// committed image) and reads_see_committed (each find). The world calls them where the event
// happens and turns what they return into findings.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/document.h"
#include "models/kv_model.h"
#include "properties/violation.h"

namespace wtsim::properties {

// One delete by the TTL monitor: of `id` in `ns`, whose pre-image held `indexed_value` (null:
// missing) in the index's field, at `now_ms` under expireAfterSeconds `expire_after_s`.
struct TtlDelete {
  std::string_view ns;
  const engine::Document* id = nullptr;
  std::string_view field;
  const engine::Document* indexed_value = nullptr;
  int64_t now_ms = 0;
  double expire_after_s = 0;
  bool on_primary = true;
  bool capped = false;  // the collection is capped
  const engine::Document* pre_image = nullptr;       // the document deleted
  const engine::Document* partial_filter = nullptr;  // the index's partialFilterExpression, if any
};
// ttl_safety: only on a primary, never in a capped collection (MongoDB's delete refuses one), never
// a document outside a partial index (its equality and $exists: true conditions), and only a Date (or an array holding one) strictly below now minus expireAfterSeconds, whose
// fraction MongoDB's TTL monitor drops (it reads the value as a whole number: 1.9 s is 1 s).
std::optional<Finding> check_ttl_delete(const TtlDelete& d);

// increments_counted_once: a committed image's counter `n` after an update that added
// `inc_total` (the $inc of n its client command asked for, not what the engine says it applied),
// given the previous committed image's counter (`last`, if known).
std::optional<Finding> check_increment(const std::string& key, std::optional<int64_t> last,
                                       const engine::Document* n, int64_t inc_total);

// reads_see_committed: every document a find of `filter` returned matches its equality fields
// and is a version the find's snapshot may see (`model.readable_values` of its key, with the
// read token from before the find began). `key_of` gives a document's model key from its _id.
std::optional<Finding> check_find(const models::KvModel& model, const engine::Document& filter,
                                  const std::vector<engine::Document>& docs, uint64_t read_token,
                                  const std::function<std::string(const engine::Document& id)>& key_of);

}  // namespace wtsim::properties
