// findAndModify's projection (engine/projection.h): inclusion, exclusion, _id, dotted paths, and
// MongoDB 3.2's refusals.
#include <gtest/gtest.h>

#include "engine/projection.h"

namespace wtsim::engine {
namespace {

const Document kDoc = {{"_id", 1}, {"i", 0}, {"j", 0}, {"a", {{"b", 1}, {"c", 2}}}, {"arr", {{{"b", 1}, {"c", 2}}, 7}}};

TEST(Projection, IncludesNamedFieldsAndIdUnlessExcluded) {
  EXPECT_EQ(project(kDoc, {{"i", 1}}), (Document{{"_id", 1}, {"i", 0}}));
  EXPECT_EQ(project(kDoc, {{"_id", 0}, {"j", 1}}), (Document{{"j", 0}}));
  EXPECT_EQ(project(kDoc, {{"_id", 1}}), (Document{{"_id", 1}}));
  EXPECT_EQ(project(kDoc, {{"i", true}, {"missing", 1}}), (Document{{"_id", 1}, {"i", 0}}));
  EXPECT_EQ(project(kDoc, Document::object()), kDoc);
}

TEST(Projection, ExcludesNamedFields) {
  EXPECT_EQ(project(kDoc, {{"i", 0}, {"a", 0}, {"arr", false}}), (Document{{"_id", 1}, {"j", 0}}));
  EXPECT_EQ(project(kDoc, {{"_id", 0}}).contains("_id"), false);
  EXPECT_EQ(project(kDoc, {{"_id", 0}}).size(), kDoc.size() - 1);
}

TEST(Projection, DottedPathsReachIntoEmbeddedDocumentsAndArraysOfThem) {
  EXPECT_EQ(project(kDoc, {{"a.b", 1}}), (Document{{"_id", 1}, {"a", {{"b", 1}}}}));
  EXPECT_EQ(project(kDoc, {{"arr.c", 1}, {"_id", 0}}), (Document{{"arr", {{{"c", 2}}}}}));  // 7 has no c
  const Document excluded = project(kDoc, {{"a.b", 0}, {"arr.b", 0}});
  EXPECT_EQ(excluded["a"], (Document{{"c", 2}}));
  EXPECT_EQ(excluded["arr"], (Document{{{"c", 2}}, 7}));
  EXPECT_EQ(project(kDoc, {{"i.x", 1}, {"_id", 0}}), Document::object());  // i holds no document
}

TEST(Projection, AMixOrAnOperatorIsRefused) {
  EXPECT_EQ(projection_error({{"i", 1}, {"_id", 0}}), "");
  EXPECT_EQ(projection_error({{"i", 1}, {"j", 0}}), "Projection cannot have a mix of inclusion and exclusion.");
  EXPECT_NE(projection_error({{"foo", {{"$pop", {"bar"}}}}}).find("Unsupported projection option: foo"), std::string::npos);
  EXPECT_NE(projection_error({{"foo", "x"}}), "");
  EXPECT_NE(projection_error(Document::array()), "");
}

}  // namespace
}  // namespace wtsim::engine
