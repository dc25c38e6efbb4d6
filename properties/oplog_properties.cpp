#include "properties/oplog_properties.h"

#include <cassert>
#include <list>
#include <set>

namespace wtsim::properties {
namespace {

constexpr size_t kProblemsMax = 4;
constexpr size_t kShownChars = 120;

std::string shown(const engine::Document& d) {
  std::string s = d.dump();
  return s.size() > kShownChars ? s.substr(0, kShownChars) + "..." : s;
}

std::string ns_of(const std::string& key) { return key.substr(0, key.find('|')); }

// The documents of capped collections that the cap removed, replaying the oplog from its start:
// a write of a document not held is an insert, appended; past the maximum, the oldest goes.
std::set<std::string> trimmed_by_cap(const std::vector<OplogEntry>& entries, const std::map<std::string, uint64_t>& capped) {
  std::map<std::string, std::list<std::string>> held;  // per capped namespace, in insertion order
  std::map<std::string, std::list<std::string>::iterator> place;  // each held document's
  std::set<std::string> trimmed;
  for (const OplogEntry& e : entries) {
    const auto cap = capped.find(ns_of(e.key));
    if (cap == capped.end()) continue;
    std::list<std::string>& docs = held[cap->first];
    const auto it = place.find(e.key);
    if (!e.image) {
      if (it != place.end()) docs.erase(it->second), place.erase(it);
      continue;
    }
    if (it != place.end()) continue;  // an update keeps its place
    place[e.key] = docs.insert(docs.end(), e.key);
    trimmed.erase(e.key);
    for (; docs.size() > cap->second; docs.pop_front()) trimmed.insert(docs.front()), place.erase(docs.front());
  }
  return trimmed;
}

}  // namespace

std::vector<Finding> check_oplog(const std::vector<OplogEntry>& entries, const std::map<std::string, engine::Document>& data,
                                 const std::map<std::string, uint64_t>& capped) {
  std::vector<Finding> out;
  auto problem = [&](std::string detail) {
    if (out.size() < kProblemsMax) out.emplace_back(Property::kOplogMatchesData, std::move(detail));
  };
  std::map<std::string, const OplogEntry*> newest;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].ts <= entries[i - 1].ts) problem("oplog ts " + std::to_string(entries[i].ts) + " follows " + std::to_string(entries[i - 1].ts));
    newest[entries[i].key] = &entries[i];
  }
  // Never trimmed (it starts at ts 1, or holds nothing): every document came with an entry.
  const bool complete = entries.empty() || entries.front().ts == 1;
  const std::set<std::string> trimmed = complete ? trimmed_by_cap(entries, capped) : std::set<std::string>{};
  for (const auto& [key, e] : newest) {
    const auto it = data.find(key);
    const bool cap_may_remove = capped.count(ns_of(key)) != 0 && (!complete || trimmed.count(key) != 0);
    if (!e->image && it != data.end()) problem(key + ": the oplog's last entry (ts " + std::to_string(e->ts) + ") deletes it, but it is there: " + shown(it->second));
    if (e->image && it == data.end() && !cap_may_remove) problem(key + ": the oplog's last entry (ts " + std::to_string(e->ts) + ") writes it, but it is absent");
    if (complete && trimmed.count(key) != 0 && it != data.end()) problem(key + ": past its collection's maximum, the oldest, but it is there");
    if (e->image && it != data.end() && *e->image != it->second) {
      problem(key + ": the oplog's last entry (ts " + std::to_string(e->ts) + ") is " + shown(*e->image) + ", the document is " + shown(it->second));
    }
  }
  for (const auto& [key, doc] : data) {
    if (complete && newest.count(key) == 0) problem(key + ": in the data, never in the oplog: " + shown(doc));
  }
  assert(out.size() <= kProblemsMax);
  return out;
}

}  // namespace wtsim::properties
