#include "properties/lock_matrix.h"

#include <cassert>
#include <cstring>

namespace wtsim::properties {
namespace {

// Rows and columns by mode name; "+" compatible, "-" not. Symmetric, as compatibility is.
constexpr const char* kModes[] = {"IS", "IX", "S", "X"};
constexpr const char* kMatrix[] = {
    //  IS IX S  X
    "+ + + -",  // IS
    "+ + - -",  // IX
    "+ - + -",  // S
    "- - - -",  // X
};
constexpr int kModeCount = 4;

int index_of(engine::LockMode mode) {
  for (int i = 0; i < kModeCount; ++i) {
    if (std::strcmp(kModes[i], engine::to_string(mode)) == 0) return i;
  }
  return -1;  // NONE: holds nothing
}

}  // namespace

bool mongodb_modes_compatible(engine::LockMode a, engine::LockMode b) {
  const int i = index_of(a), j = index_of(b);
  if (i < 0 || j < 0) return true;
  assert(std::strlen(kMatrix[i]) == 2 * kModeCount - 1);
  const bool ok = kMatrix[i][2 * j] == '+';
  assert(ok == (kMatrix[j][2 * i] == '+') && "the matrix is symmetric");
  return ok;
}

}  // namespace wtsim::properties
