#pragma once
// FNV-1a of a JSON value's compact serialisation (nlohmann's dump(-1), invalid UTF-8 replaced by
// U+FFFD), computed without building the text: a run that keeps no trace still hashes every
// event, so this is its hot path. The plain parts (objects, arrays, integers, printable ASCII
// strings) are walked here; anything else (floats, escapes, non-ASCII text, binary) goes through
// nlohmann's serialiser, so the hash is byte for byte that of the dumped text.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <string_view>

namespace wtsim::traces {

uint64_t hash_canonical(const nlohmann::json& j, uint64_t basis);
// The same for one string or one integer, as hash_canonical(nlohmann::json(x), basis) gives
// without building the value.
uint64_t hash_canonical_string(std::string_view s, uint64_t basis);
uint64_t hash_canonical_integer(int64_t n, uint64_t basis);
uint64_t hash_canonical_integer(uint64_t n, uint64_t basis);
// The 16 lowercase hex digits of `value`, as hex16 (traces/trace.h) writes them, into out[0..15]:
// a digest hashed without building its string.
void hex16_digits(uint64_t value, char* out);

}  // namespace wtsim::traces
