#pragma once
// A run allocates and frees tens of millions of small blocks (WiredTiger's update lists,
// documents, model entries); with glibc's default malloc its slow paths took a third of a long
// run. The tool therefore re-executes itself once, before doing anything, with a faster
// allocator: jemalloc (Debian's libjemalloc2, found at build time) through LD_PRELOAD, or when it
// is absent, glibc's per-thread cache enlarged through GLIBC_TUNABLES (both can only be chosen
// at process start). Allocation never reaches the output (nothing iterates in address order):
// a test checks that traces are the same either way. WTSIM_MALLOC_TUNING=off skips it.
namespace wtsim::sim {

// Returns only if no re-exec happened (already done, switched off, or exec failed).
void tune_allocator_or_reexec(char** argv);

}  // namespace wtsim::sim
