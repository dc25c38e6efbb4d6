#pragma once
// A document engine on real WiredTiger over a simulated disk, with test bodies run as fibers.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>

#include "engine/engine.h"
#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/sim_file_system.h"
#include "sim/scheduler.h"
#include "sim/sync.h"

namespace wtsim::engine {

class EngineHarness {
 public:
  explicit EngineHarness(LockPolicy policy = LockPolicy::kDocument, uint64_t seed = 1) : sim_(seed) {
    config_.policy = policy;
    reopen();
  }
  ~EngineHarness() {
    engine_.reset();
    if (conn_.is_open()) conn_.close();
  }

  // Closes cleanly (if open) and opens a new connection on the same disk: WiredTiger recovers.
  void reopen() {
    engine_.reset();
    if (conn_.is_open()) {
      ASSERT_EQ(conn_.close(), 0);
    }
    fs_.clear();  // every connection on them is closed by now
    static std::atomic<int> counter{0};
    fs_.push_back(std::make_unique<faults::SimFileSystem>(disk_, nullptr, "/test/h" + std::to_string(++counter)));
    ASSERT_EQ(conn_.open(*fs_.back(), WtConfig{}), 0);
    EngineEnv env;
    env.sim = &sim_;
    env.cpu = &cpu_;
    env.file_bytes = [this](const std::string& name) {
      for (const auto& f : disk_.files()) {
        if (f.name == name) return f.current_bytes;
      }
      return uint64_t{0};
    };
    engine_ = std::make_unique<DocumentEngine>(config_, env, conn_.get());
    run([&](OperationContext& op) { ASSERT_EQ(engine_->open(op), 0); });
  }

  // Power loss: the connection is fenced, unsynced writes are dropped, WiredTiger recovers.
  void crash_and_recover() {
    engine_.reset();
    fs_.back()->fence();
    sim::Rng rng(1);
    disk_.crash(faults::CrashMode::kDropUnsynced, rng.next());
    conn_.close_fenced();
    reopen();
  }

  // Runs `body` in a fiber with its own OperationContext, to completion.
  // An exception escaping the body (a RapidCheck assertion) is rethrown here.
  void run(const std::function<void(OperationContext&)>& body) {
    sim_.spawn("test", "t", [&] {
      OperationContext op(conn_.get());
      body(op);
    });
    finish(sim_.run());
  }

  // Runs several bodies concurrently, each in its own fiber and session.
  void run_concurrently(int fibers, const std::function<void(int, OperationContext&)>& body) {
    for (int i = 0; i < fibers; ++i) {
      sim_.spawn("client-" + std::to_string(i), "t", [&, i] {
        OperationContext op(conn_.get());
        body(i, op);
      });
    }
    finish(sim_.run());
  }

  static void finish(const sim::RunOutcome& out) {
    if (out.first_exception) std::rethrow_exception(out.first_exception);
    ASSERT_EQ(out.kind, sim::RunOutcome::Kind::kFinished) << sim::to_string(out.kind);
  }

  DocumentEngine& engine() { return *engine_; }
  // Takes effect at the next reopen() or crash_and_recover().
  EngineConfig& config() { return config_; }
  sim::Simulator& sim() { return sim_; }
  WT_CONNECTION* conn() { return conn_.get(); }
  const faults::Disk& disk() const { return disk_; }

 private:
  sim::Simulator sim_;
  faults::Disk disk_;
  std::vector<std::unique_ptr<faults::SimFileSystem>> fs_;
  WtConnection conn_;
  sim::Resource cpu_{"cpu", 2};
  EngineConfig config_;
  std::unique_ptr<DocumentEngine> engine_;
};

}  // namespace wtsim::engine
