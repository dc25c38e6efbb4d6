#pragma once
// glibc's per-thread cache keeps 7 freed blocks per size by default; a run frees and allocates
// millions of small blocks (WiredTiger's update lists, documents, model entries) and then spends
// a third of its time in malloc's slow paths. The cache size can only be set by an environment
// tunable read at process start, so the tool re-executes itself once with it set. Allocation
// never reaches the output (nothing iterates in address order): traces are the same either way.
namespace wtsim::sim {

// Returns only if no re-exec happened (already tuned, WTSIM_MALLOC_TUNING=off, or exec failed).
void tune_allocator_or_reexec(char** argv);

}  // namespace wtsim::sim
