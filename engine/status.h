#pragma once
// What the engine answers, kept apart from what failed under it. An engine error is an answer
// to the client (MongoDB's error code: no such index, duplicate key); a WiredTiger failure (its
// codes and errno values: EIO, ENOSPC, WT_PANIC) ended the operation. They travel in separate
// typed fields, never in one int, because their numbers overlap (MongoDB's BadValue is 2, errno's
// ENOENT is 2).
#include <cassert>

namespace wtsim::engine {

// Engine-level error codes: MongoDB's numbers.
enum class ErrorCode : int {
  kOk = 0,
  kBadValue = 2,
  kFailedToParse = 9,
  kIllegalOperation = 20,
  kNamespaceNotFound = 26,
  kIndexNotFound = 27,
  kCannotCreateIndex = 67,
  kInvalidOptions = 72,
  kAmbiguousIndexKeyPattern = 181,
  kCannotGrowCapped = 10003,
  kDuplicateKey = 11000,
};

// A command's outcome: ok, an engine error, or a WiredTiger failure (never both).
struct Status {
  ErrorCode code = ErrorCode::kOk;
  int wt_code = 0;

  static Status failed(int wt_ret) {
    assert(wt_ret != 0);
    return {ErrorCode::kOk, wt_ret};
  }
  // A WiredTiger return as a status: 0 is ok.
  static Status from_wt(int wt_ret) { return {ErrorCode::kOk, wt_ret}; }
  static Status error(ErrorCode c) {
    assert(c != ErrorCode::kOk);
    return {c, 0};
  }

  bool ok() const { return code == ErrorCode::kOk && wt_code == 0; }
  // One number for the trace's "code" field: the WiredTiger failure if any, else the engine's.
  int trace_code() const {
    assert(code == ErrorCode::kOk || wt_code == 0);
    return wt_code != 0 ? wt_code : static_cast<int>(code);
  }
};

}  // namespace wtsim::engine
