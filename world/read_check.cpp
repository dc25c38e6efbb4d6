// reads_see_committed (properties/document_properties.h): a find's documents, judged against the
// model at the point the find returns, and written into the history (`read`) so that a reader of
// the trace can judge them again from the commits' digests alone.
#include <algorithm>

#include "properties/document_properties.h"
#include "properties/find_reference.h"
#include "world/doc_system.h"
#include "world/run_context.h"

namespace wtsim::world {
namespace {

// Each document as [key, value digest, the fields the filter names that the document has].
nlohmann::json listed_docs(std::string_view ns, const engine::Document& filter, const std::vector<engine::Document>& docs) {
  nlohmann::json listed = nlohmann::json::array();
  const size_t n = std::min(docs.size(), History::kReadDocsListedMax);
  for (size_t i = 0; i < n; ++i) {
    const engine::Document& doc = docs[i];
    const std::vector<uint8_t> bson = engine::to_bson(doc);
    const std::string bytes(bson.begin(), bson.end());
    nlohmann::json fields = nlohmann::json::object();
    for (const auto& [field, wanted] : filter.items()) {
      if (doc.contains(field)) fields[field] = doc[field];
    }
    listed.push_back({DocSystem::model_key(ns, doc.value("_id", engine::Document())), History::value_digest(&bytes), std::move(fields)});
  }
  return listed;
}

}  // namespace

void DocSystem::check_find(std::string_view ns, const engine::FindRequest& req, const std::vector<engine::Document>& docs,
                           uint64_t read_token) {
  const engine::Document& filter = req.filter;
  nlohmann::json details = {{"ns", ns}, {"filter", filter}, {"docs", listed_docs(ns, filter, docs)}};
  if (docs.size() > History::kReadDocsListedMax) details["docs_n"] = docs.size();
  host_.history().read(read_token, std::move(details));
  const auto key_of = [ns](const engine::Document& id) { return model_key(ns, id); };
  if (auto f = properties::check_find(host_.model(), filter, docs, read_token, key_of)) finding(f->first, f->second);
  const properties::FindOutcome outcome{&req, &docs, read_token, model_key_prefix(ns)};
  if (auto f = properties::check_find_complete(host_.model(), outcome, key_of)) finding(f->first, f->second);
}

}  // namespace wtsim::world
