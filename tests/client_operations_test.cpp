// The shrinker's measure: a trace's client operations, apart from its background actors' work.
#include <gtest/gtest.h>

#include "traces/client_operations.h"

namespace wtsim::traces {
namespace {

nlohmann::json event(const char* kind, const char* actor) { return {{"kind", kind}, {"actor", actor}, {"details", nlohmann::json::object()}}; }

TEST(ClientOperations, ClientsAreNamedByTheirFiberWithoutNumberOrSuffix) {
  for (const char* name : {"writer-2.g1", "client3.g2", "client-0.g1", "client-op.g12", "toucher.g1", "inserter-0.g1",
                           "hot-writer.g1", "warm-writer.g3", "appender.g1", "script-client1.g1", "delete-job.g1", "query-loop.g2"}) {
    EXPECT_TRUE(is_client_actor(name)) << name;
  }
  for (const char* name : {"director", "restarter", "ttl-monitor.g2", "oplog-fetcher.m1.g1", "index-builder.g1", "checkpointer.g1",
                           "journal-flusher.g1", "backup", "elector.m2", "clientele", ""}) {
    EXPECT_FALSE(is_client_actor(name)) << name;
  }
}

TEST(ClientOperations, ASingleNodeCountsItsClientsCommitsAndReadsOnly) {
  ClientOperationCounter c;
  for (const auto& e : {event("commit", "writer-0.g1"), event("read", "client-1.g1"), event("commit", "ttl-monitor.g1"),
                        event("commit", "director"), event("flush_start", "journal-flusher.g1"), event("complete", "writer-0.g1")}) {
    c.add(e);
  }
  EXPECT_EQ(c.count(), 2u);
  c.add(nlohmann::json{{"kind", 7}});  // a malformed event counts as nothing
  c.add(nlohmann::json::object());
  EXPECT_EQ(c.count(), 2u);
}

TEST(ClientOperations, AReplicaSetCountsItsClientsInvocationsNotThePrimarysCommitsForThem) {
  ClientOperationCounter c;
  for (const auto& e : {event("client_invoke", "client0"), event("commit", "client-op.g11"), event("client_invoke", "client1"),
                        event("commit", "client-op.g12"), event("commit", "oplog-fetcher.m1.g1")}) {
    c.add(e);
  }
  EXPECT_EQ(c.count(), 2u);
}

}  // namespace
}  // namespace wtsim::traces
