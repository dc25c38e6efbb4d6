#pragma once
// A property violation, and the catalogue of property names a verdict can carry.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/virtual_clock.h"

namespace wtsim::properties {

enum class Property {
  kRecoveredStateIsPrefix,
  kNoPhantomValues,
  kRecoverySucceeds,
  kCorruptionDetectedOrHarmless,
  kTablesVerify,
  kIndexConsistency,
  kTtlSafety,
  kTtlBoundedAge,
  kRecordLayout,
  kPaddingFactorInRange,
  kBackupRestoresSnapshot,
  kBackupLeavesNoPin,
  kOplogMatchesData,
  kReadsSeeCommitted,
  kLockSafety,
  kSentinelRecovery,
  kIncrementsCountedOnce,
  kFinalStateMatches,
  kLiveness,
  kNoInternalError,
  kScriptExpectations,
  kReplicasConverge,
  kOnePrimaryPerTerm,
  kMajorityWritesSurvive,
  kMajorityReadsSurvive,
  kWritesFollowCommands,
  kIndexKeysFollowDocuments,
  kFindsReturnEveryMatch,
  kRecordHoldsDocument,
  kNoOrphanTables,
  kMinValidKept,
  kOplogWithinBound,
};
inline constexpr size_t kPropertyCount = 32;

struct Violation {
  Property property;
  sim::Nanos at_ns = 0;
  std::string detail;
  uint64_t event_index = 0;  // the trace event that reported it

  const char* name() const;  // as the trace and the verdict spell it
};

// A property and what broke it, as a check reports it before it becomes a Violation.
using Finding = std::pair<Property, std::string>;

struct PropertyInfo {
  Property property;
  const char* name;
  const char* checks;
};

// Every property the tool can report, in the enum's order, for docs, `wtsim properties` and the
// trace schema.
const std::vector<PropertyInfo>& catalogue();
const char* name_of(Property property);
std::optional<Property> find_property(const std::string& name);

nlohmann::json to_json(const Violation& v);

}  // namespace wtsim::properties
