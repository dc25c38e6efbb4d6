#pragma once
// MongoDB's lock compatibility matrix, stated here on its own (as the MongoDB FAQ on concurrency
// prints it), apart from the lock manager's kConflictTable: lock_safety judges grants with this,
// so a wrong cell in the table the grant decision uses cannot also hide from the check.
#include "engine/lock_manager.h"

namespace wtsim::properties {

// True if two different clients may hold `a` and `b` on one resource at once.
bool mongodb_modes_compatible(engine::LockMode a, engine::LockMode b);

}  // namespace wtsim::properties
