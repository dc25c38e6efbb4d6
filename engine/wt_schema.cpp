#include "engine/wt_schema.h"

#include <cassert>
#include <cerrno>
#include <string>

#include "sim/planted.h"

namespace wtsim::engine {
namespace {

// 0 if a cursor opens on `uri`; EINVAL or ENOENT for the remains of a create.
int probe(WT_SESSION* session, const char* uri) {
  WT_CURSOR* c = nullptr;
  const int ret = session->open_cursor(session, uri, nullptr, nullptr, &c);
  if (ret == 0) c->close(c);
  return ret;
}

}  // namespace

bool cut_short(int ret) { return ret == EINVAL || ret == ENOENT; }

int create_table(WT_SESSION* session, const char* uri, const char* table_config) {
  assert(session != nullptr && uri != nullptr && table_config != nullptr);
  const std::string unchecked = std::string(table_config) + ",checksum=off";  // "checksums cost CPU"
  const char* config = planted::active(planted::Bug::kChecksumsOff) ? unchecked.c_str() : table_config;
  int ret = session->create(session, uri, config);
  if (ret == 0) ret = probe(session, uri);
  if (!cut_short(ret) || planted::active(planted::Bug::kSkipCreateRepair)) return ret;
  // Only the remains of a create: no column group or no file, so no data to lose.
  if ((ret = session->drop(session, uri, "force=true")) != 0) return ret;
  if ((ret = session->create(session, uri, config)) != 0) return ret;
  ret = probe(session, uri);
  assert(!cut_short(ret) && "a fresh create leaves a whole table");
  return ret;
}

bool table_exists(WT_SESSION* session, const char* uri) {
  WT_CURSOR* meta = nullptr;
  if (session->open_cursor(session, "metadata:", nullptr, nullptr, &meta) != 0) return false;
  meta->set_key(meta, uri);
  const bool exists = meta->search(meta) == 0;
  meta->close(meta);
  return exists;
}

}  // namespace wtsim::engine
