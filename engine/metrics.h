#pragma once
// The engine's serverStatus counters (names as MongoDB reports them).
#include <cstdint>

#include <nlohmann/json.hpp>

namespace wtsim::engine {

struct Metrics {
  struct {
    uint64_t insert = 0, query = 0, update = 0, remove = 0, getmore = 0, command = 0;
  } opcounters;
  struct {
    uint64_t inserted = 0, updated = 0, deleted = 0, returned = 0;
  } document;
  struct {
    uint64_t scanned = 0, scanned_objects = 0;
  } query_executor;
  struct {
    uint64_t passes = 0, deleted_documents = 0;
  } ttl;
  uint64_t write_conflicts = 0;
  uint64_t record_moves = 0;

  nlohmann::json to_json() const {
    return {{"opcounters",
             {{"insert", opcounters.insert}, {"query", opcounters.query}, {"update", opcounters.update},
              {"delete", opcounters.remove}, {"getmore", opcounters.getmore}, {"command", opcounters.command}}},
            {"metrics",
             {{"document",
               {{"inserted", document.inserted}, {"updated", document.updated},
                {"deleted", document.deleted}, {"returned", document.returned}}},
              {"queryExecutor",
               {{"scanned", query_executor.scanned}, {"scannedObjects", query_executor.scanned_objects}}},
              {"ttl", {{"passes", ttl.passes}, {"deletedDocuments", ttl.deleted_documents}}},
              {"operation", {{"writeConflicts", write_conflicts}}},
              {"record", {{"moves", record_moves}}}}}};
  }
};

}  // namespace wtsim::engine
