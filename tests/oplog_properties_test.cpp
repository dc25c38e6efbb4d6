// oplog_matches_data (properties/oplog_properties.h) on a capped collection: the documents its
// maximum removed are absent without an entry, and no others.
#include <gtest/gtest.h>

#include "properties/oplog_properties.h"

namespace wtsim::properties {
namespace {

using engine::Document;

OplogEntry write(uint64_t ts, const std::string& id) { return {ts, "test.c|\"" + id + "\"", Document{{"_id", id}}}; }
OplogEntry erase(uint64_t ts, const std::string& id) { return {ts, "test.c|\"" + id + "\"", std::nullopt}; }

std::map<std::string, Document> held(const std::vector<std::string>& ids) {
  std::map<std::string, Document> data;
  for (const std::string& id : ids) data["test.c|\"" + id + "\""] = Document{{"_id", id}};
  return data;
}

const std::map<std::string, uint64_t> kCappedAtTwo = {{"test.c", 2}};

TEST(OplogProperties, ACappedCollectionLosesItsOldestDocumentsAndNoOthers) {
  const std::vector<OplogEntry> oplog = {write(1, "a"), write(2, "b"), write(3, "a"), write(4, "c")};
  EXPECT_TRUE(check_oplog(oplog, held({"b", "c"}), kCappedAtTwo).empty());  // a went: the oldest (an update keeps its place)
  EXPECT_EQ(check_oplog(oplog, held({"a", "b", "c"}), kCappedAtTwo).size(), 1u);  // a should have gone
  EXPECT_EQ(check_oplog(oplog, held({"a", "c"}), kCappedAtTwo).size(), 2u);       // b lost, a kept
  EXPECT_EQ(check_oplog(oplog, held({"b", "c"})).size(), 1u);                      // not capped: a lost
}

TEST(OplogProperties, ADeleteMakesRoomAndAnInsertAfterATrimGoesLast) {
  const std::vector<OplogEntry> oplog = {write(1, "a"), write(2, "b"), erase(3, "a"), write(4, "c"), write(5, "d"),
                                         write(6, "b")};
  // a deleted: c fits; d pushes b out; b written again comes back as the newest, pushing c out.
  EXPECT_TRUE(check_oplog(oplog, held({"d", "b"}), kCappedAtTwo).empty());
  EXPECT_FALSE(check_oplog(oplog, held({"c", "d"}), kCappedAtTwo).empty());
}

TEST(OplogProperties, FromATrimmedOplogACappedAbsenceIsNotJudged) {
  const std::vector<OplogEntry> oplog = {write(7, "b"), write(8, "c")};
  EXPECT_TRUE(check_oplog(oplog, held({"c"}), kCappedAtTwo).empty());
  EXPECT_FALSE(check_oplog(oplog, held({"c"})).empty());
}

}  // namespace
}  // namespace wtsim::properties
