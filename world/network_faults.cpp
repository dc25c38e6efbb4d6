#include "world/network_faults.h"

#include <algorithm>
#include <cassert>
#include <string>

#include "sim/json_reader.h"

namespace wtsim::world {
namespace {

size_t member_at(sim::ObjectReader& r, const std::string& key, size_t members) {
  const uint64_t m = r.u64(key);
  sim::check_bounds(m < members, r.path_of(key), "a member: below " + std::to_string(members));
  return static_cast<size_t>(m);
}

NetworkFault fault_from(const nlohmann::json& j, const std::string& path, size_t members) {
  sim::ObjectReader r(j, path);
  NetworkFault f;
  const std::string kind = r.string("kind");
  if (kind == "isolate" || kind == "pause") {
    f.kind = kind == "pause" ? NetworkFault::Kind::kPause : NetworkFault::Kind::kIsolate;
    f.member = member_at(r, "member", members);
  } else if (kind == "step_down") {
    f.kind = NetworkFault::Kind::kStepDown;
    f.member = r.has("member") ? member_at(r, "member", members) : NetworkFault::kThePrimary;
  } else if (kind == "cut") {
    f.kind = NetworkFault::Kind::kCut;
    f.from = member_at(r, "from", members);
    f.to = member_at(r, "to", members);
    if (f.from == f.to) throw sim::JsonError(r.path_of("to"), "a link joins two members: from and to differ");
  } else if (kind == "partition") {
    f.kind = NetworkFault::Kind::kPartition;
    const nlohmann::json& side = r.required("side");
    const std::string side_path = r.path_of("side");
    sim::check_bounds(side.is_array() && !side.empty() && side.size() < members, side_path,
                      "a list of some members, not all: [0, 1]");
    for (size_t i = 0; i < side.size(); ++i) {
      const uint64_t m = sim::as_u64(side[i], side_path + "/" + std::to_string(i));
      sim::check_bounds(m < members, side_path + "/" + std::to_string(i), "a member: below " + std::to_string(members));
      if (std::count(f.side.begin(), f.side.end(), m) > 0) throw sim::JsonError(side_path, "a member listed twice");
      f.side.push_back(static_cast<size_t>(m));
    }
  } else {
    throw sim::JsonError(r.path_of("kind"), "expected \"isolate\", \"cut\", \"partition\", \"pause\" or \"step_down\", found \"" + kind + "\"");
  }
  f.at_ns = static_cast<sim::Nanos>(r.u64("at_ms")) * sim::kNsPerMs;
  f.until_ns = static_cast<sim::Nanos>(r.u64("until_ms")) * sim::kNsPerMs;
  sim::check_bounds(f.until_ns > f.at_ns, r.path_of("until_ms"), "after at_ms");
  r.reject_unknown();
  return f;
}

}  // namespace

std::vector<std::pair<size_t, size_t>> NetworkFault::links(size_t members) const {
  std::vector<std::pair<size_t, size_t>> out;
  const auto both = [&](size_t a, size_t b) {
    out.emplace_back(a, b);
    out.emplace_back(b, a);
  };
  switch (kind) {
    case Kind::kIsolate:
      for (size_t other = 0; other < members; ++other) {
        if (other != member) both(member, other);
      }
      break;
    case Kind::kCut:
      out.emplace_back(from, to);
      break;
    case Kind::kPartition:
      for (size_t a : side) {
        for (size_t b = 0; b < members; ++b) {
          if (std::count(side.begin(), side.end(), b) == 0) both(a, b);
        }
      }
      break;
    case Kind::kPause:
    case Kind::kStepDown:
      break;
  }
  assert(out.empty() == (kind == Kind::kPause || kind == Kind::kStepDown));
  return out;
}

const char* to_string(NetworkFault::Kind kind) {
  switch (kind) {
    case NetworkFault::Kind::kIsolate: return "isolate";
    case NetworkFault::Kind::kCut: return "cut";
    case NetworkFault::Kind::kPartition: return "partition";
    case NetworkFault::Kind::kPause: return "pause";
    case NetworkFault::Kind::kStepDown: return "step_down";
  }
  return "?";
}

std::vector<NetworkFault> network_faults_from_json(const nlohmann::json& j, const std::string& path, size_t members) {
  sim::check_bounds(j.is_array() && j.size() <= kNetworkFaultsMax, path, "a list of at most " + std::to_string(kNetworkFaultsMax) + " faults");
  std::vector<NetworkFault> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(fault_from(j[i], path + "/" + std::to_string(i), members));
  return out;
}

}  // namespace wtsim::world
