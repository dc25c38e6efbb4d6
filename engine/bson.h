#pragma once
// BSON bytes without a JSON tree: a builder that writes elements in the caller's order (the oplog
// entry wraps a document's bytes as they are), and a projection reader that decodes only some
// top-level fields (a record's _id, or the fields its indexes need, without the whole record). Both follow nlohmann::json's BSON encoding, so their
// bytes equal what Document::to_bson would give for the same fields in the same order.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/document.h"

namespace wtsim::engine {

class BsonBuilder {
 public:
  BsonBuilder();
  void add_string(std::string_view name, std::string_view value);
  // int32 when the value fits, int64 otherwise (nlohmann's choice for integers).
  void add_int(std::string_view name, int64_t value);
  // An embedded document given as its own BSON bytes.
  void add_document(std::string_view name, const uint8_t* bson, size_t size);
  std::vector<uint8_t> finish() &&;
  // Bytes written so far: where the next element starts (templates patch values in place).
  size_t size() const { return bytes_.size(); }

 private:
  void add_name(uint8_t type, std::string_view name);
  void add_le(uint64_t value, int bytes);

  std::vector<uint8_t> bytes_;
};

// The document holding only the top-level fields in `names` that are present (the rest of the
// bytes are skipped, not decoded), or nullopt when the bytes are not well-formed BSON of the
// types the engine writes: the caller then decodes the whole document.
std::optional<Document> bson_project(const uint8_t* data, size_t size, const std::vector<std::string>& names);

}  // namespace wtsim::engine
