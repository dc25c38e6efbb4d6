#include "faults/file_image.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace wtsim::faults {

uint8_t* FileImage::writable(size_t index) {
  assert(index < chunks_.size());
  if (!is_written_[index]) {
    is_written_[index] = true;
    written_.push_back(index);
  }
  std::shared_ptr<Chunk>& chunk = chunks_[index];
  if (chunk == nullptr) {
    chunk = std::make_shared<Chunk>();  // value-initialised: zeros
  } else if (chunk.use_count() > 1) {
    chunk = std::make_shared<Chunk>(*chunk);
  }
  return chunk->data();
}

void FileImage::read(uint64_t offset, size_t len, void* buf) const {
  assert(offset + len <= size_bytes_);
  auto* out = static_cast<uint8_t*>(buf);
  while (len > 0) {
    const size_t index = offset / kChunkBytes;
    const size_t at = offset % kChunkBytes;
    const size_t n = std::min(len, kChunkBytes - at);
    if (chunks_[index] == nullptr) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, chunks_[index]->data() + at, n);
    }
    out += n;
    offset += n;
    len -= n;
  }
}

void FileImage::write(uint64_t offset, const void* data, size_t len) {
  if (offset + len > size_bytes_) resize(offset + len);
  const auto* in = static_cast<const uint8_t*>(data);
  while (len > 0) {
    const size_t index = offset / kChunkBytes;
    const size_t at = offset % kChunkBytes;
    const size_t n = std::min(len, kChunkBytes - at);
    std::memcpy(writable(index) + at, in, n);
    in += n;
    offset += n;
    len -= n;
  }
}

void FileImage::resize(uint64_t size_bytes) {
  if (size_bytes < size_bytes_ && size_bytes % kChunkBytes != 0) {
    // Keep the invariant: zero what the shrink cuts off the new last chunk.
    const size_t index = size_bytes / kChunkBytes;
    if (chunks_[index] != nullptr) {
      const size_t at = size_bytes % kChunkBytes;
      std::memset(writable(index) + at, 0, kChunkBytes - at);
    }
  }
  resize_chunks((size_bytes + kChunkBytes - 1) / kChunkBytes);
  size_bytes_ = size_bytes;
}

void FileImage::resize_chunks(size_t count) {
  chunks_.resize(count);
  is_written_.resize(count);
  chunks_min_ = std::min(chunks_min_, count);
}

void FileImage::flip_bit(uint64_t offset, uint8_t mask) {
  assert(offset < size_bytes_);
  writable(offset / kChunkBytes)[offset % kChunkBytes] ^= mask;
}

void FileImage::sync_from(FileImage& from) {
  resize_chunks(std::min(chunks_.size(), from.chunks_min_));  // what a shrink dropped stays dropped
  resize_chunks(from.chunks_.size());
  for (size_t index : from.written_) {
    if (index < from.chunks_.size()) chunks_[index] = from.chunks_[index];
  }
  size_bytes_ = from.size_bytes_;
  from.forget_written();
}

void FileImage::forget_written() {
  written_.clear();
  is_written_.assign(chunks_.size(), false);
  chunks_min_ = chunks_.size();
}

std::vector<uint8_t> FileImage::bytes() const {
  std::vector<uint8_t> out(size_bytes_);
  if (!out.empty()) read(0, out.size(), out.data());
  return out;
}

}  // namespace wtsim::faults
