#pragma once
// Documents are JSON values stored as real BSON bytes (nlohmann::json's BSON encoding), so
// their sizes match MongoDB's. A BSON Date is written {"$date": <ms since epoch>}.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wtsim::engine {

using Document = nlohmann::json;

std::vector<uint8_t> to_bson(const Document& doc);
Document from_bson(const uint8_t* data, size_t size);

// The value at a dotted path ("a.b"), or nullptr when missing.
const Document* get_path(const Document& doc, const std::string& path);

bool is_date(const Document& v);
Document make_date(int64_t ms);
int64_t date_ms(const Document& v);
// A number as BSONElement::numberLong reads it: a double cut toward zero (1.9 is 1, -0.5 is 0),
// NaN as 0, and values beyond int64 clamped (MongoDB leaves them undefined).
int64_t number_long(const Document& v);

// MongoDB's comparison order across types: null < numbers < strings < objects < arrays < bools < dates.
int compare_values(const Document& a, const Document& b);

}  // namespace wtsim::engine
