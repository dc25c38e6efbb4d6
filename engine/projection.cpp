#include "engine/projection.h"

#include <cassert>
#include <map>
#include <optional>

namespace wtsim::engine {
namespace {

bool truthy(const Document& v) { return v.is_boolean() ? v.get<bool>() : v.get<double>() != 0; }

// The paths of a projection as a tree: "a.b" and "a.c" give {a: {b, c}}; a leaf has no children.
struct PathTree {
  std::map<std::string, PathTree> children;
  bool leaf() const { return children.empty(); }
  void add(const std::string& path) {
    const size_t dot = path.find('.');
    PathTree& child = children[path.substr(0, dot)];
    if (dot != std::string::npos) child.add(path.substr(dot + 1));
  }
};

Document include(const Document& doc, const PathTree& paths);
Document exclude(const Document& doc, const PathTree& paths);

// A value under a path that goes on: into an embedded document, or into each one of an array
// (an array's other elements are dropped by an inclusion, kept by an exclusion).
std::optional<Document> descend(const Document& v, const PathTree& rest, bool inclusion) {
  if (v.is_object()) return inclusion ? include(v, rest) : exclude(v, rest);
  if (!v.is_array()) return inclusion ? std::nullopt : std::optional<Document>(v);
  Document out = Document::array();
  for (const Document& e : v) {
    if (e.is_object() || e.is_array()) out.push_back(*descend(e, rest, inclusion));
    else if (!inclusion) out.push_back(e);
  }
  return out;
}

Document include(const Document& doc, const PathTree& paths) {
  Document out = Document::object();
  for (const auto& [field, value] : doc.items()) {
    const auto it = paths.children.find(field);
    if (it == paths.children.end()) continue;
    if (it->second.leaf()) {
      out[field] = value;
    } else if (std::optional<Document> inner = descend(value, it->second, true)) {
      out[field] = std::move(*inner);
    }
  }
  return out;
}

Document exclude(const Document& doc, const PathTree& paths) {
  Document out = Document::object();
  for (const auto& [field, value] : doc.items()) {
    const auto it = paths.children.find(field);
    if (it == paths.children.end()) {
      out[field] = value;
    } else if (!it->second.leaf()) {
      out[field] = *descend(value, it->second, false);
    }
  }
  return out;
}

}  // namespace

std::string projection_error(const Document& fields) {
  if (!fields.is_object()) return "projection must be an object";
  bool included = false, excluded = false;
  for (const auto& [field, value] : fields.items()) {
    if (!value.is_number() && !value.is_boolean()) return "Unsupported projection option: " + field + ": " + value.dump();
    if (field == "_id") continue;
    (truthy(value) ? included : excluded) = true;
  }
  return included && excluded ? "Projection cannot have a mix of inclusion and exclusion." : "";
}

Document project(const Document& doc, const Document& fields) {
  assert(projection_error(fields).empty());
  if (fields.empty() || !doc.is_object()) return doc;
  bool inclusion = false;
  PathTree paths;
  for (const auto& [field, value] : fields.items()) {
    if (field == "_id") continue;  // below
    inclusion = inclusion || truthy(value);
    paths.add(field);
  }
  const bool keep_id = !fields.contains("_id") || truthy(fields["_id"]);
  // {_id: 0} alone is an exclusion; {_id: 1} alone an inclusion of _id only.
  if (!inclusion && fields.size() == 1 && fields.contains("_id") && keep_id) inclusion = true;
  Document out = inclusion ? include(doc, paths) : exclude(doc, paths);
  if (inclusion && keep_id && doc.contains("_id")) out["_id"] = doc["_id"];
  if (!keep_id) out.erase("_id");
  return out;
}

}  // namespace wtsim::engine
