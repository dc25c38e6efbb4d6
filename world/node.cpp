#include "world/node.h"

#include <atomic>
#include <cassert>

namespace wtsim::world {
namespace {

std::string next_home_alias() {
  // Process-wide, so that runs in one process never reuse a home. Never recorded: the connection
  // replaces it with "<home>" in messages.
  static std::atomic<uint64_t> counter{0};
  return "/wtsim/h" + std::to_string(++counter);
}

}  // namespace

Node::Node(faults::Disk& disk, faults::FaultInjector& faults, engine::WtConfig config)
    : disk_(disk), faults_(faults), config_(std::move(config)) {}

Node::~Node() {
  if (conn_.is_open()) {
    fence();
    conn_.close_fenced();
  }
}

int Node::open() {
  assert(!conn_.is_open());
  ++generation_;
  if (fs_) retired_.push_back(std::move(fs_));
  fs_ = std::make_unique<faults::SimFileSystem>(disk_, &faults_, next_home_alias());
  fs_->set_crash_handler(crash_handler_);
  fs_->set_disk_timer(disk_timer_);
  const int ret = conn_.open(*fs_, config_);
  if (ret != 0) fs_->fence();  // a failed open must not touch the disk any more
  return ret;
}

void Node::fence() {
  assert(fs_);
  fs_->fence();
}

bool Node::close_fenced() {
  assert(fenced());
  return conn_.is_open() && conn_.close_fenced();
}

int Node::close_clean() {
  assert(up());
  return conn_.close();
}

}  // namespace wtsim::world
