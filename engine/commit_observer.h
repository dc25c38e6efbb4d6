#pragma once
// How the world learns the commit order and fate of every document write, at the moment it
// happens (the model must see commits in WiredTiger's order, which interleaves fibers).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/document.h"

namespace wtsim::engine {

// One document's write, as views into the writer's data: valid only during before_commit (the
// observer copies what it keeps). No copies of documents on the write path.
struct DocWrite {
  std::string_view ns;
  const Document* id = nullptr;
  const Document* post_image = nullptr;  // nullptr: the document was deleted
  std::string_view post_bson;            // the post image's BSON bytes as stored (empty: deleted)
  const Document* pre_image = nullptr;   // the document before the write, if it existed
  // A TTL monitor delete: the indexed field and the index's expireAfterSeconds as stored (the
  // checker derives the bound itself, from the time of the delete: never trust the engine's).
  std::string_view ttl_field{};
  double ttl_expire_after_s = 0;
  std::string_view ttl_index{};  // for the trace: the index and the bound the engine used
  int64_t ttl_bound_ms = 0;
};

class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  // Just before commit_transaction of one unit of work; returns a ticket.
  virtual uint64_t before_commit(const std::vector<DocWrite>& writes, bool durable) = 0;
  // Just before commit_transaction of a catalog change (DDL): the collection's new catalog row
  // as stored, always durable (a journal flush follows). Its fate comes as any commit's.
  virtual uint64_t before_catalog_commit(std::string_view ns, std::string_view row) = 0;
  // Just before commit_transaction of a collection's drop: its catalog row and every document
  // (by _id) go at once, always durable (a journal flush follows).
  virtual uint64_t before_drop_commit(std::string_view ns, const std::vector<Document>& ids) = 0;
  // commit_transaction returned `ret`. May throw sim::Cancelled (the node was fenced meanwhile).
  virtual void after_commit(uint64_t ticket, int ret) = 0;
  // The journal flush a durable operation waited for returned `ret`: its tickets are durable.
  virtual void after_flush(const std::vector<uint64_t>& tickets, int ret) = 0;
};

}  // namespace wtsim::engine
