#include "world/replica_clients.h"

#include <memory>

#include "world/elector.h"
#include "world/server_selection.h"

namespace wtsim::world {
namespace {

const char* fate_name(ClientReply::Fate fate) {
  switch (fate) {
    case ClientReply::Fate::kOk: return "ok";
    case ClientReply::Fate::kNotPrimary: return "not_primary";
    case ClientReply::Fate::kFailed: return "unknown";             // a WiredTiger failure: it may have committed
    case ClientReply::Fate::kWriteConcernFailed: return "unknown";  // committed here, may yet be rolled back
  }
  return "?";
}

}  // namespace

void ReplicaClients::spawn() {
  for (uint64_t i = 0; i < run_.scenario().workload.writers; ++i) {
    run_.sim().spawn("client-" + std::to_string(i), "clients", [this, i] { client(static_cast<int>(i)); });
  }
}

void ReplicaClients::client(int index) {
  const ClientScope scope(run_);
  const WorkloadSpec& w = run_.scenario().workload;
  const ReplicaSetSpec& rs = set_.spec();
  sim::Simulator& sim = run_.sim();
  sim::Rng rng = sim::stream(run_.seed(), "workload.client." + std::to_string(index));
  while (sim.now_ns() < run_.end_ns()) {
    sim.sleep_for(rng.between(0, 2 * w.think_ns));
    if (sim.now_ns() >= run_.end_ns()) break;
    ClientRequest request{draw_documents_op(rng, w), false, rs.wtimeout_ns};
    request.majority = rng.chance(rs.majority_fraction);
    operation(index, request);
  }
}

void ReplicaClients::operation(int index, const ClientRequest& request) {
  for (int tries = 0; tries < 2; ++tries) {  // MongoDB's retryable writes retry once
    if (!primary_) primary_ = select_primary(run_, set_, endpoint());
    if (!primary_) return;  // the run ended without one
    const size_t member = *primary_;
    const uint64_t seq = ++seq_;
    nlohmann::json invoke = {{"client", index}, {"seq", seq}, {"op", request.op.name()}, {"member", member}, {"attempt", tries + 1}};
    if (request.op.is_write()) {
      invoke["w"] = request.majority ? nlohmann::json("majority") : nlohmann::json(1);
      invoke["j"] = request.op.durable || request.majority;
    } else {
      invoke["read_concern"] = request.majority ? "majority" : "local";
    }
    event("client_invoke", std::move(invoke));
    const Attempt a = attempt(member, request);
    nlohmann::json done = {{"client", index}, {"seq", seq}, {"member", member}};
    if (!a.answered) {
      done["fate"] = "unknown";
      done["why"] = a.why;
    } else {
      done["fate"] = fate_name(a.reply.fate);
      if (!a.reply.why.empty()) done["why"] = a.reply.why;
      if (a.reply.last_op.ts > 0) done["entry"] = {{"ts", a.reply.last_op.ts}, {"term", a.reply.last_op.term}};
      if (a.reply.read_point.ts > 0) done["read_point"] = {{"ts", a.reply.read_point.ts}, {"term", a.reply.read_point.term}};
    }
    const uint64_t complete = event("client_complete", std::move(done));
    if (a.answered && a.reply.fate == ClientReply::Fate::kOk) {
      run_.note_progress();
      if (request.op.is_write() && request.majority && a.reply.last_op.ts > 0) set_.note_majority_ack(a.reply.last_op, complete);
      if (!request.op.is_write()) set_.note_read(a.reply.read_point, request.majority, complete);
      return;
    }
    primary_.reset();  // find the primary again
    const bool retryable = !a.answered || a.reply.fate == ClientReply::Fate::kNotPrimary;
    if (!retryable) return;
  }
}

ReplicaClients::Attempt ReplicaClients::attempt(size_t member, const ClientRequest& request) {
  Attempt a;
  auto reply = std::make_shared<ClientReply>();
  ReplicaSet& set = set_;
  a.why = set_.rpc().call(endpoint(), member, "client-op", kRequestTimeoutNs, [&set, member, request, reply](bool* done) {
    *reply = set.server(member).serve_client(request);
    *done = true;
  }, /*drop_on_crash=*/true);
  a.answered = a.why.empty();
  if (a.answered) a.reply = *reply;
  return a;
}

uint64_t ReplicaClients::event(const char* kind, nlohmann::json details) {
  return run_.trace().event(run_.sim().now_ns(), run_.sim().current_or_main().name, kind, std::move(details));
}

}  // namespace wtsim::world
