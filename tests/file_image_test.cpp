// FileImage (the simulated disk's chunked copy-on-write file bytes) against a plain byte vector:
// random writes, truncates and growth across chunk boundaries, on an image and on copies of it,
// must read back exactly as the vectors do, and a copy must never see the other's writes.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

#include "faults/file_image.h"

namespace wtsim::faults {
namespace {

constexpr uint64_t kChunk = FileImage::kChunkBytes;

void write_both(FileImage& image, std::vector<uint8_t>& ref, uint64_t offset, size_t len, uint8_t byte) {
  const std::vector<uint8_t> data(len, byte);
  image.write(offset, data.data(), len);
  if (ref.size() < offset + len) ref.resize(offset + len, 0);
  std::copy(data.begin(), data.end(), ref.begin() + static_cast<ptrdiff_t>(offset));
}

// A file's visible image, its durable image synced from it now and then, and a ghost copy of
// the visible one that writes on its own: each must read as its byte vector does.
RC_GTEST_PROP(FileImageModel, ImagesSyncsAndCopiesReadLikeByteVectors, ()) {
  enum { kVisible, kDurable, kGhost };
  std::vector<FileImage> images(3);
  std::vector<std::vector<uint8_t>> refs(3);
  const auto n = *rc::gen::inRange(1, 60);
  for (int i = 0; i < n; ++i) {
    const auto kind = *rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {2, 2}, {1, 3}});
    const size_t target = *rc::gen::element<size_t>(kVisible, kGhost);
    // Offsets near chunk boundaries are where a chunked image can go wrong.
    const uint64_t offset = *rc::gen::inRange<uint64_t>(0, 3) * kChunk + *rc::gen::inRange<uint64_t>(0, 40);
    if (kind == 0) {
      write_both(images[target], refs[target], offset, *rc::gen::inRange<size_t>(1, 2 * kChunk), *rc::gen::arbitrary<uint8_t>());
    } else if (kind == 1) {
      images[target].resize(offset);
      refs[target].resize(offset, 0);
    } else if (kind == 2) {
      images[kDurable].sync_from(images[kVisible]);
      refs[kDurable] = refs[kVisible];
    } else {
      images[kGhost] = images[kVisible];
      refs[kGhost] = refs[kVisible];
    }
    for (size_t k = 0; k < 3; ++k) RC_ASSERT(images[k].bytes() == refs[k]);
  }
}

TEST(FileImage, ShrinkThenGrowReadsZeros) {
  FileImage image;
  std::vector<uint8_t> ones(kChunk + 100, 1);
  image.write(0, ones.data(), ones.size());
  image.resize(10);
  image.resize(kChunk + 100);
  const std::vector<uint8_t> bytes = image.bytes();
  EXPECT_TRUE(std::all_of(bytes.begin(), bytes.begin() + 10, [](uint8_t b) { return b == 1; }));
  EXPECT_TRUE(std::all_of(bytes.begin() + 10, bytes.end(), [](uint8_t b) { return b == 0; }));
}

TEST(FileImage, ACopyKeepsItsBytesWhenTheOriginalIsWritten) {
  FileImage original;
  const std::vector<uint8_t> a(3 * kChunk, 'a');
  original.write(0, a.data(), a.size());
  const FileImage copy = original;
  const uint8_t b = 'b';
  original.write(kChunk + 5, &b, 1);
  original.flip_bit(0, 1);
  EXPECT_EQ(copy.bytes(), a);
  uint8_t got = 0;
  original.read(kChunk + 5, 1, &got);
  EXPECT_EQ(got, 'b');
  original.read(0, 1, &got);
  EXPECT_EQ(got, 'a' ^ 1);
}

TEST(FileImage, ReadsAcrossChunksAndHoles) {
  FileImage image;
  const uint8_t x = 7;
  image.write(3 * kChunk, &x, 1);  // three chunks never written: holes
  std::vector<uint8_t> buf(kChunk + 2, 0xff);
  image.read(2 * kChunk - 1, buf.size(), buf.data());
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end() - 1, [](uint8_t v) { return v == 0; }));
  EXPECT_EQ(buf.back(), 7);
}

}  // namespace
}  // namespace wtsim::faults
