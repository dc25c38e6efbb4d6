#pragma once
// Reads the oplog and replication tests share: every document of a collection in _id order, and
// the oplog's entries above a ts.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/engine_harness.h"

namespace wtsim::engine {

inline std::vector<Document> all_documents(EngineHarness& h, const std::string& ns) {
  std::vector<Document> docs;
  h.run([&](OperationContext& op) { docs = h.engine().find(op, ns, FindRequest{}).docs; });
  std::sort(docs.begin(), docs.end(), [](const Document& a, const Document& b) { return a["_id"] < b["_id"]; });
  return docs;
}

inline std::vector<OplogEntry> oplog_after(EngineHarness& h, uint64_t after_ts) {
  std::vector<OplogEntry> entries;
  h.run([&](OperationContext& op) { ASSERT_EQ(h.engine().read_oplog_after(op, after_ts, 10'000, &entries), 0); });
  return entries;
}

}  // namespace wtsim::engine
