#pragma once
// A commit's event in the history (world/history.h): held by the trace until the commit completes
// or another event comes, then written. Built as JSON only when the trace keeps it; a run that
// keeps no events hashes it from these fields (traces::EventBody), which is most of a seed's
// events in explore.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/trace.h"

namespace wtsim::world {

class CommitEvent : public traces::EventBody {
 public:
  // [key, new value's digest, the replaced value's digest]; a digest is FNV-1a 64 of the value's
  // bytes, written as 16 hex digits, and absent (null) for an absent value.
  struct Write {
    std::string key;
    std::optional<uint64_t> new_digest, old_digest;
  };

  nlohmann::json details = nlohmann::json::object();  // the workload's own fields (op, ns, ...)
  std::vector<Write> writes;                          // listed: a small commit
  nlohmann::json packed;                              // a bigger group's (writes then empty)
  uint64_t writes_n = 0;                              // with `packed`
  uint64_t seq = 0;
  bool durable = false;
  uint64_t member = 0;  // 0: not written
  const char* fate = nullptr;  // static strings: "ok", "info"
  const char* why = nullptr;
  int64_t took_us = 0;  // 0: not written

  nlohmann::json to_json() const override;
  uint64_t hash_canonical(uint64_t basis) const override;
};

}  // namespace wtsim::world
