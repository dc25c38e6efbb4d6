#include "properties/oplog_properties.h"

#include <cassert>

namespace wtsim::properties {
namespace {

constexpr size_t kProblemsMax = 4;
constexpr size_t kShownChars = 120;

std::string shown(const engine::Document& d) {
  std::string s = d.dump();
  return s.size() > kShownChars ? s.substr(0, kShownChars) + "..." : s;
}

}  // namespace

std::vector<Finding> check_oplog(const std::vector<OplogEntry>& entries,
                                                             const std::map<std::string, engine::Document>& data) {
  std::vector<Finding> out;
  auto problem = [&](std::string detail) {
    if (out.size() < kProblemsMax) out.emplace_back(Property::kOplogMatchesData, std::move(detail));
  };
  std::map<std::string, const OplogEntry*> newest;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].ts <= entries[i - 1].ts) problem("oplog ts " + std::to_string(entries[i].ts) + " follows " + std::to_string(entries[i - 1].ts));
    newest[entries[i].key] = &entries[i];
  }
  for (const auto& [key, e] : newest) {
    const auto it = data.find(key);
    if (!e->image && it != data.end()) problem(key + ": the oplog's last entry (ts " + std::to_string(e->ts) + ") deletes it, but it is there: " + shown(it->second));
    if (e->image && it == data.end()) problem(key + ": the oplog's last entry (ts " + std::to_string(e->ts) + ") writes it, but it is absent");
    if (e->image && it != data.end() && *e->image != it->second) {
      problem(key + ": the oplog's last entry (ts " + std::to_string(e->ts) + ") is " + shown(*e->image) + ", the document is " + shown(it->second));
    }
  }
  // Never trimmed (it starts at ts 1, or holds nothing): every document came with an entry.
  const bool complete = entries.empty() || entries.front().ts == 1;
  for (const auto& [key, doc] : data) {
    if (complete && newest.count(key) == 0) problem(key + ": in the data, never in the oplog: " + shown(doc));
  }
  assert(out.size() <= kProblemsMax);
  return out;
}

}  // namespace wtsim::properties
