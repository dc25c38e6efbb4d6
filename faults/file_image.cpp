#include "faults/file_image.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace wtsim::faults {

uint8_t* FileImage::writable(size_t index, bool whole) {
  assert(index < chunks_.size());
  assert(is_written_.size() == chunks_.size());
  if (!is_written_[index]) {
    is_written_[index] = true;
    written_.push_back(index);
  }
  std::shared_ptr<Chunk>& chunk = chunks_[index];
  if (whole && (chunk == nullptr || chunk.use_count() > 1)) {
    chunk = std::make_shared_for_overwrite<Chunk>();  // the caller writes every byte
  } else if (chunk == nullptr) {
    chunk = std::make_shared<Chunk>();  // value-initialised: zeros
  } else if (chunk.use_count() > 1) {
    chunk = std::make_shared<Chunk>(*chunk);
  }
  assert(chunk.use_count() == 1);  // never write into a chunk another image shares
  return chunk->data();
}

void FileImage::read(uint64_t offset, size_t len, void* buf) const {
  assert(offset + len <= size_bytes_);
  assert(offset + len >= offset);  // no wrap-around
  assert(buf != nullptr || len == 0);
  auto* out = static_cast<uint8_t*>(buf);
  while (len > 0) {
    const size_t index = offset / kChunkBytes;
    const size_t at = offset % kChunkBytes;
    const size_t n = std::min(len, kChunkBytes - at);
    assert(index < chunks_.size());
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
  assert(data != nullptr || len == 0);
  assert(offset + len >= offset);  // no wrap-around
  if (len == 0) return;  // as pwrite(2): writing nothing changes nothing, not even the size
  [[maybe_unused]] const uint64_t end = offset + len;
  if (offset + len > size_bytes_) resize(offset + len);
  const auto* in = static_cast<const uint8_t*>(data);
  while (len > 0) {
    const size_t index = offset / kChunkBytes;
    const size_t at = offset % kChunkBytes;
    const size_t n = std::min(len, kChunkBytes - at);
    std::memcpy(writable(index, /*whole=*/n == kChunkBytes) + at, in, n);
    in += n;
    offset += n;
    len -= n;
  }
  assert(size_bytes_ >= end);
  assert(shape_ok());
}

void FileImage::resize(uint64_t size_bytes) {
  [[maybe_unused]] const uint64_t old_size = size_bytes_;
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
  assert(shape_ok());
  assert(size_bytes >= old_size || tail_zero());  // scanned on a shrink only: growth is hot
}

void FileImage::resize_chunks(size_t count) {
  chunks_.resize(count);
  is_written_.resize(count);
  chunks_min_ = std::min(chunks_min_, count);
}

void FileImage::flip_bit(uint64_t offset, uint8_t mask) {
  assert(offset < size_bytes_);
  assert(mask != 0 && (mask & (mask - 1)) == 0);  // exactly one bit
  writable(offset / kChunkBytes)[offset % kChunkBytes] ^= mask;
}

void FileImage::sync_from(FileImage& from) {
  assert(shape_ok() && from.shape_ok());
  resize_chunks(std::min(chunks_.size(), from.chunks_min_));  // what a shrink dropped stays dropped
  resize_chunks(from.chunks_.size());
  for (size_t index : from.written_) {
    if (index < from.chunks_.size()) chunks_[index] = from.chunks_[index];
  }
  size_bytes_ = from.size_bytes_;
  from.forget_written();
  assert(shape_ok() && from.written_.empty());
  assert(same_content(from));  // O(chunks): after a sync every chunk is shared
}

void FileImage::forget_written() {
  written_.clear();
  is_written_.assign(chunks_.size(), false);
  chunks_min_ = chunks_.size();
  assert(shape_ok());  // the bytes are unchanged: tail_zero() was asserted where they changed
}

std::vector<uint8_t> FileImage::bytes() const {
  std::vector<uint8_t> out(size_bytes_);
  if (!out.empty()) read(0, out.size(), out.data());
  return out;
}

bool FileImage::same_content(const FileImage& other) const {
  if (size_bytes_ != other.size_bytes_ || chunks_.size() != other.chunks_.size()) return false;
  static const Chunk kZeros{};
  for (size_t i = 0; i < chunks_.size(); ++i) {
    const Chunk* a = chunks_[i].get();
    const Chunk* b = other.chunks_[i].get();
    if (a == b) continue;  // shared, or both never written
    // Whole chunks: the bytes past the size are zero in both.
    if (*(a != nullptr ? a : &kZeros) != *(b != nullptr ? b : &kZeros)) return false;
  }
  return true;
}

bool FileImage::shape_ok() const {
  return chunks_.size() == (size_bytes_ + kChunkBytes - 1) / kChunkBytes &&
         is_written_.size() == chunks_.size() && chunks_min_ <= chunks_.size();
}

bool FileImage::tail_zero() const {
  const size_t at = size_bytes_ % kChunkBytes;
  if (at == 0 || chunks_.empty() || chunks_.back() == nullptr) return true;
  const uint8_t* tail = chunks_.back()->data();
  return std::all_of(tail + at, tail + kChunkBytes, [](uint8_t b) { return b == 0; });
}

}  // namespace wtsim::faults
