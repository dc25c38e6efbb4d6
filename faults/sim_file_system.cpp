#include "faults/sim_file_system.h"

#include <wiredtiger_ext.h>

#include "faults/weakening.h"
#include "sim/scheduler.h"
#include "sim/wt_threads.h"

#include <cassert>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace wtsim::faults {
namespace {

struct Handle {
  WT_FILE_HANDLE iface;  // first member: WiredTiger hands this pointer back
  SimFileSystem* fs;
  InodeId inode;
  bool directory;
  std::string name;  // relative
};

SimFileSystem* owner_of(WT_FILE_SYSTEM* fs) {
  return reinterpret_cast<SimFileSystem::Iface*>(fs)->owner;
}

Handle* handle_of(WT_FILE_HANDLE* fh) { return reinterpret_cast<Handle*>(fh); }

int fs_directory_list_impl(WT_FILE_SYSTEM* wfs, const char* directory, const char* prefix,
                           char*** dirlistp, uint32_t* countp, bool single) {
  SimFileSystem* fs = owner_of(wfs);
  assert(dirlistp != nullptr && countp != nullptr);
  (void)directory;  // one flat directory
  std::vector<std::string> names = fs->disk().list(prefix == nullptr ? "" : prefix);
  if (single && names.size() > 1) names.resize(1);
  char** list = static_cast<char**>(std::calloc(names.size() + 1, sizeof(char*)));
  if (list == nullptr) return ENOMEM;
  for (size_t i = 0; i < names.size(); ++i) list[i] = strdup(names[i].c_str());
  *dirlistp = list;
  *countp = static_cast<uint32_t>(names.size());
  return 0;
}

int fs_directory_list(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* directory, const char* prefix,
                      char*** dirlistp, uint32_t* countp) {
  return fs_directory_list_impl(wfs, directory, prefix, dirlistp, countp, false);
}

int fs_directory_list_single(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* directory,
                             const char* prefix, char*** dirlistp, uint32_t* countp) {
  return fs_directory_list_impl(wfs, directory, prefix, dirlistp, countp, true);
}

int fs_directory_list_free(WT_FILE_SYSTEM*, WT_SESSION*, char** dirlist, uint32_t count) {
  if (dirlist == nullptr) return 0;
  for (uint32_t i = 0; i < count; ++i) std::free(dirlist[i]);
  std::free(dirlist);
  return 0;
}

int fs_exist(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* name, bool* existp) {
  SimFileSystem* fs = owner_of(wfs);
  const std::string rel = fs->relative(name);
  *existp = rel.empty() || fs->disk().exists(rel);
  return 0;
}

int fh_close(WT_FILE_HANDLE* fh, WT_SESSION*) {
  Handle* h = handle_of(fh);
  std::free(h->iface.name);
  delete h;
  return 0;
}

int fh_lock(WT_FILE_HANDLE*, WT_SESSION*, bool) { return 0; }

int fh_read(WT_FILE_HANDLE* fh, WT_SESSION*, wt_off_t offset, size_t len, void* buf) {
  Handle* h = handle_of(fh);
  assert(!h->directory && h->inode != 0);  // WiredTiger reads files only
  assert(offset >= 0);
  const FaultDecision d = h->fs->check(FsOp::kRead, h->name);
  if (d.error != 0) return d.error;
  h->fs->pay(FsOp::kRead, len);
  h->fs->mutable_stats().reads++;
  h->fs->mutable_stats().bytes_read += len;
  return h->fs->disk().read(h->inode, static_cast<uint64_t>(offset), len, buf);
}

int fh_write(WT_FILE_HANDLE* fh, WT_SESSION*, wt_off_t offset, size_t len, const void* buf) {
  Handle* h = handle_of(fh);
  assert(offset >= 0 && (buf != nullptr || len == 0));
  if (h->directory) return EISDIR;
  const FaultDecision d = h->fs->check(FsOp::kWrite, h->name);
  if (d.error != 0) return d.error;
  h->fs->pay(FsOp::kWrite, len);
  h->fs->mutable_stats().writes++;
  h->fs->mutable_stats().bytes_written += len;
  return h->fs->disk().write(h->inode, static_cast<uint64_t>(offset) + d.misdirect_bytes, buf, len);
}

int fh_size(WT_FILE_HANDLE* fh, WT_SESSION*, wt_off_t* sizep) {
  Handle* h = handle_of(fh);
  assert(h->directory == (h->inode == 0));
  *sizep = h->directory ? 0 : static_cast<wt_off_t>(h->fs->disk().size(h->inode));
  assert(*sizep >= 0);  // a size fits wt_off_t
  return 0;
}

// A failed sync halts WiredTiger, as its POSIX file system does (os_posix/os_fs.c never retries
// a flush: after a failed fsync Linux may have dropped the dirty pages, so nothing written since
// the last good sync can be trusted). Returning the error instead lets WiredTiger 3.2.1 carry on
// past a hole in its log, or wedge its log on a failed file switch (docs/findings.md, finding 25).
int fh_sync(WT_FILE_HANDLE* fh, WT_SESSION* session) {
  Handle* h = handle_of(fh);
  const FaultDecision d = h->fs->check(FsOp::kSync, h->name);
  h->fs->pay(FsOp::kSync, 0);  // a failing sync takes its time too
  if (d.error != 0) {
    if (d.drop_dirty && !h->directory) h->fs->disk().drop_dirty(h->inode);
    return sim::wt_threads::panic_connection(session, d.error);
  }
  h->fs->mutable_stats().syncs++;
  if (h->directory) {
    h->fs->disk().sync_directory();
  } else {
    h->fs->disk().sync(h->inode);
  }
  return 0;
}

int fh_truncate(WT_FILE_HANDLE* fh, WT_SESSION*, wt_off_t len) {
  Handle* h = handle_of(fh);
  assert(!h->directory);  // installed on file handles only
  assert(len >= 0);
  const FaultDecision d = h->fs->check(FsOp::kTruncate, h->name);
  if (d.error != 0) return d.error;
  return h->fs->disk().truncate(h->inode, static_cast<uint64_t>(len));
}

// WiredTiger extends each new log file before its rename (file_extend=(log=...)), so recovery
// finds zeros after the header; without this, a power loss right after the rename leaves a
// header-only file that WiredTiger 3.2.1 cannot recover (docs/findings.md, finding 16).
int fh_extend(WT_FILE_HANDLE* fh, WT_SESSION*, wt_off_t len) {
  Handle* h = handle_of(fh);
  assert(!h->directory);
  assert(len >= 0);
  const FaultDecision d = h->fs->check(FsOp::kTruncate, h->name);  // the size-change family
  if (d.error != 0) return d.error;
  h->fs->pay(FsOp::kTruncate, 0);
  return h->fs->disk().allocate(h->inode, static_cast<uint64_t>(len));
}

int fs_open_file(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* name, WT_FS_OPEN_FILE_TYPE type,
                 uint32_t flags, WT_FILE_HANDLE** fhp) {
  SimFileSystem* fs = owner_of(wfs);
  const std::string rel = fs->relative(name);
  const bool directory = type == WT_FS_OPEN_FILE_TYPE_DIRECTORY || rel.empty();
  InodeId inode = 0;
  if (!directory) {
    const bool create = (flags & WT_FS_OPEN_CREATE) != 0;
    const bool exists = fs->disk().exists(rel);
    if (exists && (flags & WT_FS_OPEN_EXCLUSIVE) != 0) return EEXIST;
    if (!exists && !create) return ENOENT;
    if (!exists) {
      const FaultDecision d = fs->check(FsOp::kCreate, rel);
      if (d.error != 0) return d.error;
    }
    inode = fs->disk().open(rel, create, (flags & WT_FS_OPEN_DURABLE) != 0);
    if (inode == 0) return ENOENT;
  }
  assert(directory == (inode == 0));  // a file handle always names an inode
  auto* h = new Handle{};
  h->fs = fs;
  h->inode = inode;
  h->directory = directory;
  h->name = rel;
  h->iface.file_system = wfs;
  h->iface.name = strdup(name);
  h->iface.close = fh_close;
  h->iface.fh_lock = fh_lock;
  h->iface.fh_read = fh_read;
  h->iface.fh_size = fh_size;
  h->iface.fh_sync = fh_sync;
  h->iface.fh_write = fh_write;  // WiredTiger requires it even on directory handles
  if (!directory) {
    h->iface.fh_truncate = fh_truncate;
    h->iface.fh_extend = fh_extend;
  }
  *fhp = &h->iface;
  return 0;
}

int fs_remove(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* name, uint32_t flags) {
  SimFileSystem* fs = owner_of(wfs);
  const std::string rel = fs->relative(name);
  const FaultDecision d = fs->check(FsOp::kRemove, rel);
  if (d.error != 0) return d.error;
  return fs->disk().remove(rel, (flags & WT_FS_DURABLE) != 0);
}

int fs_rename(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* from, const char* to, uint32_t flags) {
  SimFileSystem* fs = owner_of(wfs);
  const std::string rel_from = fs->relative(from);
  const std::string rel_to = fs->relative(to);
  const FaultDecision d = fs->check(FsOp::kRename, rel_to);
  if (d.error != 0) return d.error;
  return fs->disk().rename(rel_from, rel_to, (flags & WT_FS_DURABLE) != 0);
}

int fs_size(WT_FILE_SYSTEM* wfs, WT_SESSION*, const char* name, wt_off_t* sizep) {
  SimFileSystem* fs = owner_of(wfs);
  const std::string rel = fs->relative(name);
  const InodeId inode = fs->disk().open(rel, false, false);
  if (inode == 0) return ENOENT;
  *sizep = static_cast<wt_off_t>(fs->disk().size(inode));
  assert(*sizep >= 0);  // a size fits wt_off_t
  return 0;
}

// Owned by SimFileSystem. WiredTiger calls it as it frees a connection, a failed open's too, whose
// address a later connection may get: nothing recorded about it may outlive it (finding 28).
int fs_terminate(WT_FILE_SYSTEM*, WT_SESSION* session) {
  if (session != nullptr) sim::wt_threads::connection_closed(session->connection);
  return 0;
}

}  // namespace

SimFileSystem::SimFileSystem(Disk& disk, FaultInjector* faults, std::string home)
    : disk_(&disk), faults_(faults), home_(std::move(home)) {
  static_assert(offsetof(Iface, fs) == 0);
  iface_.owner = this;
  WT_FILE_SYSTEM& fs = iface_.fs;
  fs.fs_directory_list = fs_directory_list;
  fs.fs_directory_list_single = fs_directory_list_single;
  fs.fs_directory_list_free = fs_directory_list_free;
  fs.fs_exist = fs_exist;
  fs.fs_open_file = fs_open_file;
  fs.fs_remove = fs_remove;
  fs.fs_rename = fs_rename;
  fs.fs_size = fs_size;
  fs.terminate = fs_terminate;
}

SimFileSystem::~SimFileSystem() = default;

namespace {
SimFileSystem* g_to_install = nullptr;  // set by extension_config(), taken by the entry point
}  // namespace

std::string SimFileSystem::extension_config() {
  // WiredTiger looks the entry point up in the running program (exported with -rdynamic). The
  // file system travels outside the config string: the string is written into WiredTiger.basecfg,
  // and an address there would make file sizes (and so disk time) depend on the heap's layout.
  g_to_install = this;
  return "extensions=[local={entry=wtsim_install_file_system,early_load=true}]";
}

std::string SimFileSystem::relative(const char* name) const {
  std::string s = name == nullptr ? "" : name;
  // The home only as a whole path component: home "h1" must not take "h10/x" for "0/x". A name
  // outside the home keeps its leading slash, so it never aliases a file of the home.
  const bool in_home = !home_.empty() && s.compare(0, home_.size(), home_) == 0 &&
                       (s.size() == home_.size() || s[home_.size()] == '/' || home_.back() == '/');
  if (in_home) {
    s.erase(0, home_.size());
    while (!s.empty() && s.front() == '/') s.erase(0, 1);
  }
  while (s.compare(0, 2, "./") == 0) s.erase(0, 2);
  if (s == ".") s.clear();
  return s;
}

FaultDecision SimFileSystem::check(FsOp op, const std::string& file) {
  if (faults_ == nullptr || fenced_) return {};
  static const std::string kNoSimulator;
  sim::Simulator* sim = sim::Simulator::active();
  const std::string& actor = sim != nullptr ? sim->current_or_main().name : kNoSimulator;
  FaultDecision d = faults_->on_disk_op(op, file, actor);
  if (d.crash && crash_handler_) crash_handler_(d.crash_mode, op, file);
  assert(!d.crash || fenced_ || !crash_handler_);  // the handler fences: the op goes to the ghost
  assert(!d.drop_dirty || (d.error != 0 && op == FsOp::kSync));  // fh_sync relies on it
  return d;
}

void SimFileSystem::pay(FsOp op, uint64_t bytes) {
  assert(bytes == 0 || op == FsOp::kRead || op == FsOp::kWrite);  // only data moves bytes
  if (fenced_ || !disk_timer_) return;
  sim::Simulator* sim = sim::Simulator::active();
  if (sim == nullptr || !sim->in_fiber()) return;
  sim::NoCancelScope inside_wiredtiger(sim->current());
  disk_timer_(op, bytes);
}

void SimFileSystem::fence() {
  if (fenced_) return;
  if (weakening::active(weakening::Weakening::kFenceLeaks)) {
    fenced_ = true;
    return;
  }
  assert(ghost_ == nullptr);  // a file system fences once
  ghost_ = disk_->clone_visible();
  disk_ = ghost_.get();
  fenced_ = true;
  assert(disk_ == ghost_.get());
}

SimFileSystem* take_file_system_to_install() {
  SimFileSystem* fs = g_to_install;
  g_to_install = nullptr;
  return fs;
}

}  // namespace wtsim::faults

// The extension entry point named in extension_config(). Exported from the executable.
extern "C" int wtsim_install_file_system(WT_CONNECTION* conn, WT_CONFIG_ARG*) {
  wtsim::faults::SimFileSystem* fs = wtsim::faults::take_file_system_to_install();
  if (fs == nullptr) return EINVAL;  // wiredtiger_open without extension_config() just before
  return conn->set_file_system(conn, fs->wt_file_system(), nullptr);
}
