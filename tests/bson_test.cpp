// The engine's BSON without a JSON tree: the builder's bytes equal nlohmann's encoding of the same
// document (the oplog's bytes did not change when it stopped building JSON), and the field reader
// agrees with a full decode and refuses malformed bytes without reading past them.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/bson.h"

namespace wtsim::engine {
namespace {

Document gen_value() {
  switch (*rc::gen::inRange(0, 6)) {
    case 0: return *rc::gen::arbitrary<int64_t>();
    case 1: return *rc::gen::inRange(-1000, 1000);
    case 2: return *rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'z'));
    case 3: return make_date(*rc::gen::arbitrary<int64_t>());
    case 4: return Document{*rc::gen::arbitrary<bool>(), nullptr, 1.5};
    default: return *rc::gen::arbitrary<double>();
  }
}

RC_GTEST_PROP(Bson, OplogEntryBytesEqualNlohmanns, ()) {
  const Document doc = {{"_id", gen_value()}, {"value", gen_value()}};
  const std::vector<uint8_t> o = to_bson(doc);
  const std::string ns = *rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'z'));
  const int64_t ts = *rc::gen::arbitrary<int64_t>();
  BsonBuilder entry;
  entry.add_string("ns", ns);
  entry.add_document("o", o.data(), o.size());
  entry.add_string("op", "u");
  entry.add_int("ts", ts);
  const Document expected = {{"ts", ts}, {"ns", ns}, {"op", "u"}, {"o", doc}};
  RC_ASSERT(std::move(entry).finish() == to_bson(expected));
}

RC_GTEST_PROP(Bson, ProjectionAgreesWithAFullDecode, ()) {
  const Document doc = {{"_id", gen_value()}, {"a", gen_value()}, {"created_at", gen_value()}, {"z", gen_value()}};
  const std::vector<uint8_t> bytes = to_bson(doc);
  std::vector<std::string> names = {"_id", "a", "created_at", "z", "missing"};
  names.resize(*rc::gen::inRange<size_t>(0, names.size() + 1));
  const std::optional<Document> view = bson_project(bytes.data(), bytes.size(), names);
  RC_ASSERT(view.has_value());
  Document expected = Document::object();
  for (const std::string& name : names) {
    if (doc.contains(name)) expected[name] = doc.at(name);
  }
  RC_ASSERT(*view == expected);
}

RC_GTEST_PROP(Bson, FieldReaderRefusesCutOrDamagedBytes, ()) {
  const Document doc = {{"a", gen_value()}, {"_id", gen_value()}};
  std::vector<uint8_t> bytes = to_bson(doc);
  const auto cut = *rc::gen::inRange<size_t>(0, bytes.size());
  std::vector<uint8_t> shorter(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(cut));
  RC_ASSERT(!bson_project(shorter.data(), shorter.size(), {"_id"}).has_value());
  // A damaged byte gives nullopt or a document, never a read past the buffer (ASan would see it)
  // nor an exception.
  bytes[*rc::gen::inRange<size_t>(4, bytes.size() - 1)] ^= *rc::gen::inRange<uint8_t>(1, 255);
  (void)bson_project(bytes.data(), bytes.size(), {"_id", "a"});
}

}  // namespace
}  // namespace wtsim::engine
