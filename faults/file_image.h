#pragma once
// The bytes of one simulated file, in fixed-size chunks shared copy-on-write between images: a
// file's durable image and its visible one share every chunk not written since the last sync,
// a fenced connection's ghost copy shares everything until it writes, and growing a file never
// moves what is already there. A chunk never written (or zeroed by a truncate) takes no memory.
// Not thread-safe by itself: the Disk's lock guards every image (copies included).
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace wtsim::faults {

class FileImage {
 public:
  static constexpr size_t kChunkBytes = size_t{4} << 10;

  uint64_t size() const { return size_bytes_; }
  bool empty() const { return size_bytes_ == 0; }
  // Requires offset + len <= size().
  void read(uint64_t offset, size_t len, void* buf) const;
  // Grows the file (with zeros) when the write ends past it.
  void write(uint64_t offset, const void* data, size_t len);
  // Shrinks, or grows with zeros.
  void resize(uint64_t size_bytes);
  void flip_bit(uint64_t offset, uint8_t mask);
  // A sync: `*this` was equal to `from` when `from` last synced (or both were new); it becomes
  // equal again, sharing `from`'s chunks, in time proportional to the chunks written since.
  void sync_from(FileImage& from);
  // Forgets which chunks were written (after a crash made the images equal by other means).
  void forget_written();
  std::vector<uint8_t> bytes() const;
  // Whether both images hold the same bytes; cheap when they share chunks (for assertions).
  bool same_content(const FileImage& other) const;

 private:
  using Chunk = std::array<uint8_t, kChunkBytes>;
  // The chunk at `index`, made private to this image (allocated, or copied if shared; neither
  // zeroed nor copied when the caller overwrites it `whole`).
  uint8_t* writable(size_t index, bool whole = false);

  void resize_chunks(size_t count);
  // For assertions: the chunk vectors match the size, and the invariant below holds.
  bool shape_ok() const;
  bool tail_zero() const;

  // Invariant: bytes of the last chunk beyond size_bytes_ are zero, so growth reads zeros.
  std::vector<std::shared_ptr<Chunk>> chunks_;  // nullptr: all zeros
  uint64_t size_bytes_ = 0;
  // Since the last sync_from(*this): the chunks made private (each once), and the fewest chunks
  // the file had (a shrink drops chunks a regrowth brings back as zeros).
  std::vector<size_t> written_;
  std::vector<bool> is_written_;
  size_t chunks_min_ = 0;
};

}  // namespace wtsim::faults
