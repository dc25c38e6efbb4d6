#pragma once
// Jobs run in forked children, a few at once, their reports taken in the jobs' order (the
// shrinker's candidates, two at a time on two cores). A run is single-threaded (WiredTiger's
// threads are fibers), so a fork is a whole copy, and a child that crashes never takes the
// caller down. A child reports a few numbers through a pipe and leaves with _exit. Reports come
// back in index order whatever order the children finish in, so what the caller decides from
// them does not depend on timing; once it stops the batch, the children still running are killed.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace wtsim::runs {

constexpr size_t kReportWords = 4;
using ReportWords = std::array<uint64_t, kReportWords>;

struct ChildReport {
  bool completed = false;  // the child wrote its report (false: it crashed or was killed)
  ReportWords words{};
};

struct ForkedBatch {
  size_t count = 0;     // jobs 0 .. count - 1, started in that order
  int parallel = 2;     // children at once, >= 1
  std::function<ReportWords(size_t)> job;  // runs in the child
  std::function<bool()> may_start;         // asked before each child starts: false starts no more
  std::function<bool(size_t, const ChildReport&)> take;  // in index order; false stops the batch
};

// Returns how many reports were taken.
size_t run_forked_batch(const ForkedBatch& batch);

}  // namespace wtsim::runs
