#pragma once
// How the world learns the commit order and fate of every document write, at the moment it
// happens (the model must see commits in WiredTiger's order, which interleaves fibers).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/document.h"

namespace wtsim::engine {

struct DocWrite {
  std::string ns;
  Document id;
  std::optional<Document> post_image;  // nullopt: the document was deleted
  int64_t inc_total = 0;               // sum of this write's $inc amounts on field "n" (ledger)
  std::optional<Document> pre_image;   // the document before the write, if it existed
  // A TTL monitor delete: the indexed field and the index's expireAfterSeconds as stored (the
  // checker derives the bound itself, from the time of the delete: never trust the engine's).
  std::string ttl_field;
  double ttl_expire_after_s = 0;
};

class CommitObserver {
 public:
  virtual ~CommitObserver() = default;
  // Just before commit_transaction of one unit of work; returns a ticket.
  virtual uint64_t before_commit(const std::vector<DocWrite>& writes, bool durable) = 0;
  // commit_transaction returned `ret`. May throw sim::Cancelled (the node was fenced meanwhile).
  virtual void after_commit(uint64_t ticket, int ret) = 0;
  // The journal flush a durable operation waited for returned `ret`: its tickets are durable.
  virtual void after_flush(const std::vector<uint64_t>& tickets, int ret) = 0;
};

}  // namespace wtsim::engine
