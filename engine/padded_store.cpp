#include "engine/padded_store.h"

#include "engine/bson.h"
#include "engine/key_string.h"
#include "engine/wt_schema.h"
#include "sim/planted.h"

#include <cassert>
#include <cstring>

namespace wtsim::engine::padded {
namespace {

constexpr int64_t kPaddingFactorKey = -1;  // the extent table's meta row

std::string u32_bytes(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
  return s;
}

uint32_t u32_of(const void* data) {
  const auto* p = static_cast<const uint8_t*>(data);
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// The free table's key: the region's DiskLoc, so that regions load in location order.
std::string free_key(RecordLoc loc) { return record_id_key(loc.packed()); }

// The record table's key: extent, then place in the extent's record list.
std::string record_key(uint32_t extent, uint32_t place) { return record_id_key((uint64_t{extent} << 32) | place); }
uint32_t extent_of(const std::string& rkey) { return static_cast<uint32_t>(record_id_of(rkey) >> 32); }

int put_raw(WT_CURSOR* c, const std::string& key, const std::string& value) {
  WT_ITEM k = item_of(key), v = item_of(value);
  c->set_key(c, &k);
  c->set_value(c, &v);
  return c->insert(c);
}

int remove_raw(WT_CURSOR* c, const std::string& key) {
  WT_ITEM k = item_of(key);
  c->set_key(c, &k);
  return c->remove(c);
}

int put_extent_row(WT_CURSOR* c, int64_t key, uint64_t value) {
  std::string bytes(8, '\0');
  std::memcpy(bytes.data(), &value, 8);
  WT_ITEM v = item_of(bytes);
  c->set_key(c, key);
  c->set_value(c, &v);
  return c->insert(c);
}

// Persists what the allocator did: new extents, consumed and created free regions, paddingFactor.
int persist(OperationContext& op, const CollectionSpec& coll, const MmapAllocator& alloc,
            const std::vector<uint64_t>& new_extents, const std::vector<Region>& taken, const std::vector<Region>& added) {
  int ret = 0;
  WT_CURSOR* ext = op.cursor(extent_table(coll), &ret);
  if (ext == nullptr) return ret;
  const size_t first_new = alloc.extents().size() - new_extents.size();
  for (size_t i = 0; ret == 0 && i < new_extents.size(); ++i) ret = put_extent_row(ext, static_cast<int64_t>(first_new + i), new_extents[i]);
  if (ret != 0) return ret;
  WT_CURSOR* fr = op.cursor(free_table(coll), &ret);
  if (fr == nullptr) return ret;
  for (const Region& r : taken) {
    if ((ret = remove_raw(fr, free_key(r.loc))) != 0) return ret;
  }
  for (const Region& r : added) {
    if ((ret = put_raw(fr, free_key(r.loc), u32_bytes(r.length))) != 0) return ret;
  }
  double pf = alloc.padding_factor();
  uint64_t pf_bits = 0;
  std::memcpy(&pf_bits, &pf, 8);
  return put_extent_row(ext, kPaddingFactorKey, pf_bits);
}

// The record's allocated length and DiskLoc.
int read_region(OperationContext& op, const CollectionSpec& coll, const std::string& rkey, Region* region) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  WT_ITEM k = item_of(rkey);
  c->set_key(c, &k);
  if ((ret = c->search(c)) != 0) return ret;
  WT_ITEM v;
  if ((ret = c->get_value(c, &v)) != 0) return ret;
  *region = {loc_of(rkey, v.data, v.size), u32_of(v.data)};
  return 0;
}

int write_record(OperationContext& op, const CollectionSpec& coll, const std::string& rkey, const Region& region,
                 const std::vector<uint8_t>& bson) {
  assert(extent_of(rkey) == region.loc.extent);
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  return put_raw(c, rkey, u32_bytes(region.length) + u32_bytes(region.loc.offset) + std::string(bson.begin(), bson.end()));
}

// The next place in each extent's record list: one after its last record's (at open).
int load_record_lists(OperationContext& op, const CollectionSpec& coll, MmapAllocator* alloc) {
  int ret = 0;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  for (uint32_t extent = 0; c != nullptr && extent < alloc->extents().size(); ++extent) {
    const std::string after = record_key(extent + 1, 0);
    WT_ITEM k = item_of(after);
    c->set_key(c, &k);
    int exact = 0;
    ret = c->search_near(c, &exact);
    if (ret == 0 && exact >= 0) ret = c->prev(c);
    if (ret == WT_NOTFOUND) continue;
    if (ret != 0) return ret;
    WT_ITEM last;
    if ((ret = c->get_key(c, &last)) != 0) return ret;
    const uint64_t id = record_id_of(string_of(last));
    if (static_cast<uint32_t>(id >> 32) == extent) alloc->restore_record_list(extent, static_cast<uint32_t>(id) + 1);
  }
  return c == nullptr ? ret : 0;
}

}  // namespace

std::string free_table(const CollectionSpec& coll) { return coll.table + "-free"; }
std::string extent_table(const CollectionSpec& coll) { return coll.table + "-extents"; }

RecordLoc loc_of(const std::string& rkey, const void* value, size_t size) {
  assert(size >= kValueHeaderBytes);
  return {extent_of(rkey), u32_of(static_cast<const uint8_t*>(value) + 4)};
}

int create_tables(WT_SESSION* s, const CollectionSpec& coll) {
  int ret = create_table(s, coll.table.c_str(), "key_format=u,value_format=u");
  if (ret == 0) ret = create_table(s, free_table(coll).c_str(), "key_format=u,value_format=u");
  if (ret == 0) ret = create_table(s, extent_table(coll).c_str(), "key_format=q,value_format=u");
  return ret;
}

int load(OperationContext& op, const CollectionSpec& coll, MmapAllocator* alloc) {
  int ret = 0;
  std::vector<uint64_t> extents;
  double pf = 1.0;
  WT_CURSOR* ext = op.cursor(extent_table(coll), &ret);
  while (ext != nullptr && (ret = ext->next(ext)) == 0) {
    int64_t key = 0;
    WT_ITEM v;
    ext->get_key(ext, &key);
    ext->get_value(ext, &v);
    uint64_t value = 0;
    std::memcpy(&value, v.data, 8);
    if (key == kPaddingFactorKey) {
      std::memcpy(&pf, &value, 8);
    } else {
      assert(static_cast<size_t>(key) == extents.size());
      extents.push_back(value);
    }
  }
  if (ret != WT_NOTFOUND) return ret;
  std::vector<Region> free;
  WT_CURSOR* fr = op.cursor(free_table(coll), &ret);
  while (fr != nullptr && (ret = fr->next(fr)) == 0) {
    WT_ITEM k, v;
    fr->get_key(fr, &k);
    fr->get_value(fr, &v);
    free.push_back({RecordLoc::unpack(record_id_of(string_of(k))), u32_of(v.data)});
  }
  if (ret != WT_NOTFOUND) return ret;
  alloc->restore(std::move(extents), free, pf);
  return load_record_lists(op, coll, alloc);
}

namespace {

int place(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::vector<uint8_t>& bson,
          std::string* rkey, uint32_t* record_bytes, bool fresh) {
  std::vector<uint64_t> new_extents;
  std::vector<Region> taken, added;
  // 1.x's insert calls paddingFits first, a move's reinsert too; 2.6 after a fresh insert only.
  if (alloc.fits_before_sizing()) alloc.padding_fits();
  const Region r = alloc.allocate(alloc.allocation_size(static_cast<uint32_t>(bson.size())), &new_extents, &taken, &added);
  *rkey = record_key(r.loc.extent, alloc.append_to_record_list(r.loc.extent));
  *record_bytes = r.length;
  if (fresh && !alloc.fits_before_sizing()) alloc.padding_fits();
  const int ret = write_record(op, coll, *rkey, r, bson);
  return ret != 0 ? ret : persist(op, coll, alloc, new_extents, taken, added);
}

}  // namespace

int insert(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::vector<uint8_t>& bson,
           std::string* rkey, uint32_t* record_bytes) {
  return place(op, coll, alloc, bson, rkey, record_bytes, /*fresh=*/true);
}

int update(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::string& rkey,
           const std::vector<uint8_t>& bson, int indexes, std::string* new_rkey, uint32_t* old_bytes,
           uint32_t* new_bytes, bool* moved) {
  Region old;
  int ret = read_region(op, coll, rkey, &old);
  if (ret != 0) return ret;
  *old_bytes = old.length;
  const uint32_t header_bytes = planted::active(planted::Bug::kUpdateFitsWithoutHeader) ? 0 : MmapAllocator::kRecordHeaderBytes;
  *moved = bson.size() > *old_bytes - header_bytes;
  if (!*moved) {  // fits its netLength: in place
    *new_rkey = rkey;
    *new_bytes = *old_bytes;
    alloc.padding_fits();
    ret = write_record(op, coll, rkey, old, bson);
    return ret != 0 ? ret : persist(op, coll, alloc, {}, {}, {});
  }
  alloc.padding_too_small(indexes);
  if ((ret = place(op, coll, alloc, bson, new_rkey, new_bytes, /*fresh=*/false)) != 0) return ret;
  uint32_t freed = 0;
  return remove(op, coll, alloc, rkey, &freed);
}

int remove(OperationContext& op, const CollectionSpec& coll, MmapAllocator& alloc, const std::string& rkey,
           uint32_t* record_bytes) {
  Region freed;
  int ret = read_region(op, coll, rkey, &freed);
  if (ret != 0) return ret;
  *record_bytes = freed.length;
  WT_CURSOR* c = op.cursor(coll.table, &ret);
  if (c == nullptr) return ret;
  if ((ret = remove_raw(c, rkey)) != 0) return ret;
  alloc.release(freed);
  return persist(op, coll, alloc, {}, {}, {freed});
}

Document decode(const void* data, size_t size, uint32_t* record_bytes) {
  assert(size >= kValueHeaderBytes);
  if (record_bytes != nullptr) *record_bytes = u32_of(data);
  return from_bson(static_cast<const uint8_t*>(data) + kValueHeaderBytes, size - kValueHeaderBytes);
}

}  // namespace wtsim::engine::padded

namespace wtsim::engine {

Document record_document(const CollectionSpec& coll, const void* data, size_t size) {
  return coll.padded ? padded::decode(data, size) : from_bson(static_cast<const uint8_t*>(data), size);
}

Document record_view(const CollectionSpec& coll, const void* data, size_t size, const std::vector<std::string>* fields) {
  if (fields == nullptr) return record_document(coll, data, size);
  const std::string_view bson = record_bson(coll, data, size);
  std::optional<Document> view = bson_project(reinterpret_cast<const uint8_t*>(bson.data()), bson.size(), *fields);
  return view ? std::move(*view) : record_document(coll, data, size);
}

std::string_view record_bson(const CollectionSpec& coll, const void* data, size_t size) {
  const size_t header = coll.padded ? padded::kValueHeaderBytes : 0;
  assert(size >= header);
  return {static_cast<const char*>(data) + header, size - header};
}

}  // namespace wtsim::engine
