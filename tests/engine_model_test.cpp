// RapidCheck state machine: random inserts, $inc upserts, deletes, findAndModify, finds by a secondary and a
// multikey index, clean restarts and power-loss crashes, run against the document engine on
// WiredTiger and against models::DocReference, compared after every step. Every write is
// durable (j:true), so after a crash the engine must equal the model exactly.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <rapidcheck/state.h>

#include "models/doc_reference.h"
#include "tests/engine_harness.h"

namespace wtsim::engine {
namespace {

using Model = models::DocReference;
const char* kNs = "test.m";
constexpr int kIds = 12;

struct Sut {
  EngineHarness h;
  Sut() {
    h.run([&](OperationContext& op) {
      ASSERT_TRUE(h.engine().create_index(op, kNs, {"g_1", {{"g", 1}}, false, std::nullopt, ""}).ok());
      ASSERT_TRUE(h.engine().create_index(op, kNs, {"tags_1", {{"tags", 1}}, false, std::nullopt, ""}).ok());
    });
  }
};

using Command = rc::state::Command<Model, Sut>;

// RapidCheck prints failing operands; it cannot print json, so compare renderings.
std::string text(const std::vector<Document>& docs) { return Document(docs).dump(); }

void expect_same_state(const Model& m, Sut& s) {
  s.h.run([&](OperationContext& op) {
    FindRequest all;
    all.sort = std::make_pair(std::string("_id"), 1);
    const FindResult r = s.h.engine().find(op, kNs, all);
    std::vector<Document> expected;
    for (const auto& [key, doc] : m.collection(kNs)) expected.push_back(doc);
    std::sort(expected.begin(), expected.end(), [](const Document& a, const Document& b) { return compare_values(a["_id"], b["_id"]) < 0; });
    RC_ASSERT(text(r.docs) == text(expected));
    RC_ASSERT(s.h.engine().validate(op, kNs).valid);
  });
}

struct Insert : Command {
  int id = *rc::gen::inRange(0, kIds);
  int g = *rc::gen::inRange(0, 3);
  int tag = *rc::gen::inRange(0, 4);
  Document doc() const { return {{"_id", id}, {"g", g}, {"tags", {tag, tag + 10}}, {"n", 0}}; }
  void apply(Model& m) const override { m.insert(kNs, doc()); }
  void run(const Model& m, Sut& s) const override {
    const bool fresh = m.collection(kNs).count(Document(id).dump()) == 0;
    s.h.run([&](OperationContext& op) {
      const WriteResult w = s.h.engine().insert_many(op, kNs, {doc()}, {true});
      RC_ASSERT(w.status.ok());
      RC_ASSERT(w.n == (fresh ? 1u : 0u));
      RC_ASSERT(w.errors.size() == (fresh ? 0u : 1u));
    });
  }
  void show(std::ostream& os) const override { os << "insert " << doc().dump(); }
};

struct Inc : Command {
  int id = *rc::gen::inRange(0, kIds);
  int by = *rc::gen::inRange(1, 5);
  bool upsert = *rc::gen::arbitrary<bool>();
  void apply(Model& m) const override {
    bool upserted = false;
    m.inc(kNs, id, "n", by, upsert, &upserted);
  }
  void run(const Model& m, Sut& s) const override {
    Model copy = m;
    bool upserted = false;
    const int matched = copy.inc(kNs, id, "n", by, upsert, &upserted);
    s.h.run([&](OperationContext& op) {
      const WriteResult w = s.h.engine().update(op, kNs, {{"_id", id}}, {{"$inc", {{"n", by}}}}, upsert, false, {true});
      RC_ASSERT(w.ok());
      RC_ASSERT(w.n == static_cast<uint64_t>(matched));
      RC_ASSERT(w.upserted_ids.size() == (upserted ? 1u : 0u));
    });
  }
  void show(std::ostream& os) const override { os << "inc _id " << id << " by " << by << (upsert ? " upsert" : ""); }
};

struct Remove : Command {
  int id = *rc::gen::inRange(0, kIds);
  void apply(Model& m) const override { m.remove(kNs, id); }
  void run(const Model& m, Sut& s) const override {
    const bool present = m.collection(kNs).count(Document(id).dump()) == 1;
    s.h.run([&](OperationContext& op) {
      const WriteResult w = s.h.engine().remove(op, kNs, {{"_id", id}}, true, {true});
      RC_ASSERT(w.ok());
      RC_ASSERT(w.n == (present ? 1u : 0u));
    });
  }
  void show(std::ostream& os) const override { os << "remove _id " << id; }
};

// findAndModify on {g: value}, first by _id up or down: an $inc of n (the document before or
// after) or a removal (the document removed).
struct FindAndModify : Command {
  int g = *rc::gen::inRange(0, 3);
  int direction = *rc::gen::element(1, -1);
  bool remove = *rc::gen::arbitrary<bool>();
  int by = *rc::gen::inRange(1, 5);
  bool return_new = !remove && *rc::gen::arbitrary<bool>();
  void apply(Model& m) const override { m.find_and_modify(kNs, "g", g, direction, remove, by, return_new); }
  void run(const Model& m, Sut& s) const override {
    Model copy = m;
    const Document expected = copy.find_and_modify(kNs, "g", g, direction, remove, by, return_new);
    FindAndModifyRequest request;
    request.query = {{"g", g}};
    request.sort = std::make_pair(std::string("_id"), direction);
    if (!remove) request.update = Document{{"$inc", {{"n", by}}}};
    request.remove = remove;
    request.return_new = return_new;
    s.h.run([&](OperationContext& op) {
      const FindAndModifyResult r = s.h.engine().find_and_modify(op, kNs, request, {true});
      RC_ASSERT(r.ok());
      RC_ASSERT(r.n == (expected.is_null() ? 0u : 1u));
      RC_ASSERT(r.value.value_or(Document()).dump() == expected.dump());
      RC_ASSERT(r.updated_existing == (!remove && !expected.is_null()));
    });
  }
  void show(std::ostream& os) const override {
    os << "findAndModify g " << g << " by _id " << direction << (remove ? " remove" : " $inc n " + std::to_string(by)) << (return_new ? " new" : "");
  }
};

struct CheckAll : Command {
  void run(const Model& m, Sut& s) const override { expect_same_state(m, s); }
  void show(std::ostream& os) const override { os << "compare everything"; }
};

struct FindBy : Command {
  bool by_tag = *rc::gen::arbitrary<bool>();
  int value = *rc::gen::inRange(0, 14);
  void apply(Model&) const override {}
  void run(const Model& m, Sut& s) const override {
    const std::string field = by_tag ? "tags" : "g";
    std::vector<Document> expected = m.find_eq(kNs, field, value);
    s.h.run([&](OperationContext& op) {
      FindRequest q;
      q.filter = {{field, value}};
      FindResult r = s.h.engine().find(op, kNs, q);
      auto by_id = [](const Document& a, const Document& b) { return compare_values(a["_id"], b["_id"]) < 0; };
      std::sort(r.docs.begin(), r.docs.end(), by_id);
      std::sort(expected.begin(), expected.end(), by_id);
      RC_ASSERT(text(r.docs) == text(expected));
      RC_ASSERT(r.explain["queryPlanner"]["winningPlan"]["inputStage"]["stage"].dump() == std::string("\"IXSCAN\""));
    });
  }
  void show(std::ostream& os) const override { os << "find " << (by_tag ? "tags" : "g") << " == " << value; }
};

struct Restart : Command {
  void run(const Model& m, Sut& s) const override {
    s.h.reopen();
    expect_same_state(m, s);
  }
  void show(std::ostream& os) const override { os << "clean restart"; }
};

struct Crash : Command {
  void run(const Model& m, Sut& s) const override {
    s.h.crash_and_recover();
    expect_same_state(m, s);
  }
  void show(std::ostream& os) const override { os << "power loss and recovery"; }
};

RC_GTEST_PROP(EngineModel, RandomOperationsCrashesAndRestartsMatchTheReference, ()) {
  Model model;
  Sut sut;
  rc::state::check(model, sut,
                   rc::state::gen::execOneOfWithArgs<Insert, Insert, Inc, Inc, Remove, FindAndModify, FindBy, CheckAll, Restart, Crash>());
}

}  // namespace
}  // namespace wtsim::engine
