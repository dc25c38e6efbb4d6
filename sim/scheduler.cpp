#include "sim/scheduler.h"

#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/fiber.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/protected_fixedsize_stack.hpp>

#include <cassert>
#include <cstdio>
#include <cstdlib>

namespace wtsim::sim {
namespace {

thread_local Simulator* t_active = nullptr;

// The Boost.Fiber scheduling algorithm: a ready list from which the active simulator draws at
// random. Installed once per thread and kept, because Boost.Fiber's main and dispatcher contexts
// stay registered with it between runs.
class SimAlgorithm final : public boost::fibers::algo::algorithm {
 public:
  void awakened(boost::fibers::context* ctx) noexcept override { ready_.push_back(ctx); }

  boost::fibers::context* pick_next() noexcept override {
    if (ready_.empty() && t_active != nullptr) t_active->on_idle();
    if (ready_.empty()) return nullptr;
    const size_t i = t_active != nullptr ? t_active->scheduler_rng().below(ready_.size()) : 0;
    boost::fibers::context* ctx = ready_[i];
    ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    return ctx;
  }

  bool has_ready_fibers() const noexcept override { return !ready_.empty(); }

  void suspend_until(std::chrono::steady_clock::time_point const&) noexcept override {
    // Reached only when nothing is ready, no timer is pending and run() is not waiting: a bug in
    // the runtime itself (the main context blocked outside run()).
    std::fprintf(stderr, "wtsim: scheduler idle with no runnable fiber outside run()\n");
    std::abort();
  }

  void notify() noexcept override {}

 private:
  std::vector<boost::fibers::context*> ready_;
};

void install_algorithm_once() {
  static thread_local bool installed = false;
  if (installed) return;
  boost::fibers::use_scheduling_algorithm<SimAlgorithm>();
  installed = true;
}

void make_ready(boost::fibers::context* ctx) {
  // Same thread, our own ready list: equivalent to context::schedule() without its sleep queue.
  boost::fibers::context::active()->schedule(ctx);
}

}  // namespace

const char* to_string(RunOutcome::Kind kind) {
  switch (kind) {
    case RunOutcome::Kind::kFinished: return "finished";
    case RunOutcome::Kind::kDeadlock: return "deadlock";
    case RunOutcome::Kind::kTimeLimit: return "time_limit";
    case RunOutcome::Kind::kFiberError: return "fiber_error";
  }
  return "?";
}

Simulator::Simulator(uint64_t seed, Nanos time_limit_ns)
    : seed_(seed), time_limit_ns_(time_limit_ns), scheduler_rng_(stream(seed, "scheduler")) {
  assert(t_active == nullptr && "one simulator per thread at a time");
  install_algorithm_once();
  t_active = this;
}

Simulator::~Simulator() {
  assert(live_ == 0 && "fibers must finish (run() returns) before the simulator goes");
  t_active = nullptr;
}

Simulator* Simulator::active() { return t_active; }

void Simulator::spawn(std::string name, std::string group, std::function<void()> body) {
  auto record = std::make_unique<FiberRecord>();
  record->id = fibers_.size() + 1;
  record->name = std::move(name);
  record->group = std::move(group);
  FiberRecord* fiber = record.get();
  fibers_.push_back(std::move(record));
  ++live_;
  boost::fibers::fiber f(std::allocator_arg, boost::fibers::protected_fixedsize_stack(kStackBytes),
                         [this, fiber, body = std::move(body)] {
                           fiber->ctx = boost::fibers::context::active();
                           by_context_[fiber->ctx] = fiber;
                           try {
                             if (!fiber->cancel) body();
                           } catch (const Cancelled&) {
                           } catch (const std::exception& e) {
                             if (!first_exception_) first_exception_ = std::current_exception();
                             fiber_errors_.push_back(fiber->name + ": " + e.what());
                             cancel_group("");
                           } catch (...) {
                             if (!first_exception_) first_exception_ = std::current_exception();
                             fiber_errors_.push_back(fiber->name + ": unknown exception");
                             cancel_group("");
                           }
                           finish_fiber(*fiber);
                         });
  f.detach();
}

void Simulator::finish_fiber(FiberRecord& fiber) {
  assert(!fiber.finished && !fiber.timer);
  fiber.finished = true;
  by_context_.erase(fiber.ctx);
  assert(live_ > 0);
  --live_;
}

RunOutcome Simulator::run() {
  assert(boost::fibers::context::active()->is_context(boost::fibers::type::main_context));
  RunOutcome outcome;
  main_ctx_ = boost::fibers::context::active();
  while (live_ > 0) {
    main_parked_ = true;
    main_ctx_->suspend();  // on_idle() makes main ready when nothing else can run
    assert(!main_parked_);
    if (live_ == 0) break;
    // Stuck: fibers live, none ready, no timer (deadlock), or the next timer is past the limit.
    if (outcome.kind == RunOutcome::Kind::kFinished) {
      outcome.kind = time_limit_hit_ ? RunOutcome::Kind::kTimeLimit : RunOutcome::Kind::kDeadlock;
      outcome.at_ns = now_ns();
      outcome.blocked = blocked_fibers();
    }
    cancel_group("");
  }
  main_ctx_ = nullptr;
  if (!fiber_errors_.empty() && outcome.kind == RunOutcome::Kind::kFinished) {
    outcome.kind = RunOutcome::Kind::kFiberError;
    outcome.at_ns = now_ns();
  }
  outcome.errors = std::move(fiber_errors_);
  outcome.first_exception = first_exception_;
  fiber_errors_.clear();
  first_exception_ = nullptr;
  return outcome;
}

void Simulator::on_idle() {
  if (!timers_.empty() && !time_limit_hit_) {
    const Nanos when_ns = timers_.begin()->first.when_ns;
    if (when_ns <= time_limit_ns_) {
      clock_.advance_to(when_ns);
      while (!timers_.empty() && timers_.begin()->first.when_ns == when_ns) {
        FiberRecord* fiber = timers_.begin()->second;
        timers_.erase(timers_.begin());
        fiber->timer.reset();
        unpark(*fiber);
      }
      return;
    }
    time_limit_hit_ = true;
  }
  if (main_parked_) {
    main_parked_ = false;
    make_ready(main_ctx_);
  }
}

FiberRecord& Simulator::current() {
  auto it = by_context_.find(boost::fibers::context::active());
  assert(it != by_context_.end() && "simulator primitives are for simulated fibers only");
  return *it->second;
}

void Simulator::check_cancelled() {
  if (current().cancel) throw Cancelled{};
}

void Simulator::sleep_until(Nanos when_ns) {
  FiberRecord& fiber = current();
  check_cancelled();
  if (when_ns < now_ns()) when_ns = now_ns();
  const TimerKey key{when_ns, timer_seq_++};
  timers_.emplace(key, &fiber);
  fiber.timer = key;
  park("sleep");
}

void Simulator::yield() {
  check_cancelled();
  boost::this_fiber::yield();
  check_cancelled();
}

void Simulator::park(const char* waits_on, const std::string* detail) {
  FiberRecord& fiber = current();
  if (fiber.cancel) {
    if (fiber.timer) {
      timers_.erase(*fiber.timer);
      fiber.timer.reset();
    }
    throw Cancelled{};
  }
  fiber.parked = true;
  fiber.waits_on = waits_on;
  fiber.waits_on_detail = detail;
  fiber.ctx->suspend();
  assert(!fiber.parked);
  fiber.waits_on = nullptr;
  fiber.waits_on_detail = nullptr;
  if (fiber.cancel) throw Cancelled{};
}

void Simulator::unpark(FiberRecord& fiber) {
  assert(fiber.parked && !fiber.finished);
  fiber.parked = false;
  make_ready(fiber.ctx);
}

void Simulator::cancel_group(std::string_view group) {
  for (auto& fiber : fibers_) {
    if (fiber->finished || fiber->cancel) continue;
    if (!group.empty() && fiber->group != group) continue;
    fiber->cancel = true;
    if (!fiber->parked) continue;  // it throws at its next park
    if (fiber->timer) {
      timers_.erase(*fiber->timer);
      fiber->timer.reset();
    }
    unpark(*fiber);
  }
}

size_t Simulator::live_fibers(std::string_view group) const {
  size_t n = 0;
  for (const auto& fiber : fibers_) n += (!fiber->finished && fiber->group == group) ? 1 : 0;
  return n;
}

std::vector<BlockedFiber> Simulator::blocked_fibers() const {
  std::vector<BlockedFiber> blocked;
  for (const auto& fiber : fibers_) {
    if (fiber->finished) continue;
    std::string what = fiber->waits_on != nullptr ? fiber->waits_on : "running";
    if (fiber->waits_on_detail != nullptr) what += " " + *fiber->waits_on_detail;
    if (fiber->timer) what += " until " + std::to_string(fiber->timer->when_ns) + " ns";
    blocked.push_back({fiber->id, fiber->name, fiber->group, what});
  }
  return blocked;
}

}  // namespace wtsim::sim
