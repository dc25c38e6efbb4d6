// reads_see_committed (properties/document_properties.h): a find's documents, judged against the
// model at the point the find returns.
#include "properties/document_properties.h"
#include "world/doc_system.h"
#include "world/run_context.h"

namespace wtsim::world {

void DocSystem::check_find(std::string_view ns, const engine::Document& filter, const std::vector<engine::Document>& docs,
                           uint64_t read_token) {
  const auto key_of = [ns](const engine::Document& id) { return model_key(ns, id); };
  if (auto f = properties::check_find(host_.model(), filter, docs, read_token, key_of)) finding(f->first, f->second);
}

}  // namespace wtsim::world
