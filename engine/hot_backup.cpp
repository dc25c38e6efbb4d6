#include "engine/hot_backup.h"

#include <regex>

namespace wtsim::engine {

int open_backup_cursor(WT_SESSION* session, WT_CURSOR** cursor, std::vector<std::string>* files) {
  int ret = session->open_cursor(session, "backup:", nullptr, nullptr, cursor);
  if (ret != 0) return ret;
  files->clear();
  while ((ret = (*cursor)->next(*cursor)) == 0) {
    const char* name = nullptr;
    if ((ret = (*cursor)->get_key(*cursor, &name)) != 0) break;
    files->push_back(name);
  }
  if (ret == WT_NOTFOUND) return 0;
  (*cursor)->close(*cursor);
  *cursor = nullptr;
  return ret;
}

int close_backup_cursor(WT_CURSOR* cursor) { return cursor->close(cursor); }

int pin_backup_checkpoint(WT_SESSION* session) {
  const std::string config = std::string("name=") + kBackupCheckpoint + ",drop=(from=all)";
  return session->checkpoint(session, config.c_str());
}

int release_backup_checkpoint(WT_SESSION* session, const std::string& table_uri) {
  // The quotes are required: unquoted, 3.2.1 answers EINVAL.
  const std::string config = "target=(\"" + table_uri + "\"),drop=(" + kBackupCheckpoint + ")";
  return session->checkpoint(session, config.c_str());
}

int drop_backup_checkpoint(WT_SESSION* session) {
  const std::string config = std::string("drop=(") + kBackupCheckpoint + ")";
  return session->checkpoint(session, config.c_str());
}

int checkpoints_of(WT_SESSION* session, const std::string& file_uri, std::vector<std::string>* names) {
  WT_CURSOR* c = nullptr;
  int ret = session->open_cursor(session, "metadata:", nullptr, nullptr, &c);
  if (ret != 0) return ret;
  c->set_key(c, file_uri.c_str());
  names->clear();
  if ((ret = c->search(c)) == 0) {
    const char* value = nullptr;
    c->get_value(c, &value);
    // checkpoint=(WiredTigerCheckpoint.7=(addr=...),wtsim_backup=(addr=...))
    static const std::regex kName(R"(([A-Za-z_][A-Za-z0-9_.]*)=\(addr=)");
    const std::string meta = value;
    for (auto it = std::sregex_iterator(meta.begin(), meta.end(), kName); it != std::sregex_iterator(); ++it) {
      names->push_back((*it)[1]);
    }
  }
  c->close(c);
  return ret;
}

}  // namespace wtsim::engine
