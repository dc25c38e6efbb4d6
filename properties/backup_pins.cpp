#include "properties/backup_pins.h"

#include <cstring>

namespace wtsim::properties {
namespace {

// A file's metadata value lists its checkpoints as checkpoint=(NAME=(addr=...,...),NAME=(...)):
// a checkpoint's name is followed by "=(" at the list's top level.
bool lists_checkpoint(const char* value, const std::string& checkpoint) {
  const char* list = std::strstr(value, ",checkpoint=(");
  if (list == nullptr) return false;
  int depth = 0;
  for (const char* p = list + std::strlen(",checkpoint=("); *p != '\0' && depth >= 0; ++p) {
    const bool at_name = depth == 0 && (p[-1] == '(' || p[-1] == ',');
    if (at_name && std::strncmp(p, checkpoint.c_str(), checkpoint.size()) == 0 && std::strncmp(p + checkpoint.size(), "=(", 2) == 0) {
      return true;
    }
    if (*p == '(') ++depth;
    if (*p == ')') --depth;
  }
  return false;
}

}  // namespace

int files_holding_checkpoint(WT_SESSION* session, const std::string& checkpoint, std::vector<std::string>* files) {
  files->clear();
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, "metadata:", nullptr, nullptr, &c);
  if (ret != 0) return ret;
  while ((ret = c->next(c)) == 0) {
    const char* key = nullptr;
    const char* value = nullptr;
    if ((ret = c->get_key(c, &key)) != 0 || (ret = c->get_value(c, &value)) != 0) break;
    if (std::strncmp(key, "file:", 5) == 0 && lists_checkpoint(value, checkpoint)) files->push_back(key);
  }
  c->close(c);
  return ret == WT_NOTFOUND ? 0 : ret;
}

}  // namespace wtsim::properties
