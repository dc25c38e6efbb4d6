#pragma once
// The node's lifecycle on the simulated disk: each start is a new generation with its own file
// system view and home alias (WiredTiger refuses one home twice in a process); a crash fences
// the generation (its connection keeps a private ghost copy) and the next start recovers from the
// durable images.
#include <memory>
#include <string>
#include <vector>

#include "engine/wt_connection.h"
#include "faults/disk.h"
#include "faults/fault_injector.h"
#include "faults/sim_file_system.h"

namespace wtsim::world {

class Node {
 public:
  Node(faults::Disk& disk, faults::FaultInjector& faults, engine::WtConfig config);
  ~Node();

  // Starts a new generation: opens WiredTiger, which runs recovery. Returns WiredTiger's code.
  int open();
  bool up() const { return conn_.is_open() && !fs_->fenced(); }
  bool fenced() const { return fs_ != nullptr && fs_->fenced(); }
  // From now on nothing the current connection does reaches the disk.
  void fence();
  // Closes a fenced connection; its fibers must have exited (their sessions closed). True if the
  // close hung and the connection was abandoned (engine::WtConnection::close_fenced).
  bool close_fenced();
  // Clean shutdown. Returns WiredTiger's code.
  int close_clean();

  WT_CONNECTION* conn() const { return conn_.get(); }
  uint64_t generation() const { return generation_; }
  const faults::SimFileSystem* fs() const { return fs_.get(); }
  std::vector<std::string> take_messages() { return conn_.take_messages(); }
  void set_crash_handler(faults::SimFileSystem::CrashHandler handler) { crash_handler_ = std::move(handler); }
  void set_disk_timer(faults::SimFileSystem::DiskTimer timer) { disk_timer_ = std::move(timer); }

 private:
  faults::Disk& disk_;
  faults::FaultInjector& faults_;
  engine::WtConfig config_;
  uint64_t generation_ = 0;
  std::unique_ptr<faults::SimFileSystem> fs_;
  std::vector<std::unique_ptr<faults::SimFileSystem>> retired_;  // outlive their connections
  engine::WtConnection conn_;
  faults::SimFileSystem::CrashHandler crash_handler_;
  faults::SimFileSystem::DiskTimer disk_timer_;
};

}  // namespace wtsim::world
