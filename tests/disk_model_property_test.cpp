// RapidCheck: random write/sync/crash sequences on the simulated disk match a simple model in
// which a file is its durable bytes plus, after a crash, any mix of pending bytes the mode allows.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <vector>

#include "faults/disk.h"

namespace wtsim::faults {
namespace {

struct Op {
  int kind;  // 0 write, 1 sync, 2 crash
  uint64_t offset;
  uint8_t byte;
  size_t len;
  int mode;
};

Op gen_op() {
  return Op{*rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {1, 2}}), *rc::gen::inRange<uint64_t>(0, 3000),
            *rc::gen::arbitrary<uint8_t>(), *rc::gen::inRange<size_t>(1, 1500), *rc::gen::inRange(0, 3)};
}

RC_GTEST_PROP(DiskModel, CrashKeepsDurableBytesAndOnlyWrittenBytes, ()) {
  const auto n = *rc::gen::inRange(1, 40);
  Disk disk;
  InodeId f = disk.open("f", true, true);
  std::vector<uint8_t> durable;                     // model: synced bytes
  std::vector<std::map<uint64_t, uint8_t>> pending;  // model: per byte, values written since sync
  std::vector<uint8_t> visible;
  sim::Rng rng(*rc::gen::arbitrary<uint64_t>());
  for (int i = 0; i < n; ++i) {
    const Op op = gen_op();
    if (op.kind == 0) {
      std::vector<uint8_t> data(op.len, op.byte);
      RC_ASSERT(disk.write(f, op.offset, data.data(), data.size()) == 0);
      if (visible.size() < op.offset + op.len) visible.resize(op.offset + op.len, 0);
      if (pending.size() < op.offset + op.len) pending.resize(op.offset + op.len);
      for (size_t b = 0; b < op.len; ++b) {
        visible[op.offset + b] = op.byte;
        pending[op.offset + b][i] = op.byte;
      }
    } else if (op.kind == 1) {
      disk.sync(f);
      durable = visible;
      pending.assign(pending.size(), {});
    } else {
      const auto mode = static_cast<CrashMode>(op.mode);
      disk.crash(mode, rng.next());
      const auto img = disk.visible_image("f");
      // Every byte is the durable byte or a byte some pending write put there (zero-filled growth
      // counts as a pending write of the writer's bytes, so allow 0 beyond the durable size).
      for (size_t b = 0; b < img.size(); ++b) {
        const bool is_durable = b < durable.size() && img[b] == durable[b];
        bool is_pending = b >= durable.size() && img[b] == 0;
        if (b < pending.size()) {
          for (const auto& [when, v] : pending[b]) is_pending |= v == img[b];
        }
        RC_ASSERT(is_durable || is_pending);
      }
      RC_ASSERT(img.size() >= durable.size());
      if (mode == CrashMode::kDropUnsynced) RC_ASSERT(img == durable);
      visible = img;
      durable = img;
      pending.assign(visible.size(), {});
    }
  }
}

}  // namespace
}  // namespace wtsim::faults
