#include "traces/trace_stream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "sim/json_reader.h"
#include "traces/trace_reader.h"

namespace wtsim::traces {
namespace {

constexpr size_t kWriteBufferBytes = 1 << 20;
constexpr size_t kMaxLineBytes = 256u << 20;  // no record comes near; a file without newlines stops here

// One line without its '\n'. False at the end of the file; *complete is false when the last line
// has no '\n' (a cut-off write).
bool read_line(std::istream& in, std::string* line, bool* complete) {
  line->clear();
  std::streambuf* sb = in.rdbuf();
  for (;;) {
    const int c = sb->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      *complete = false;
      return !line->empty();
    }
    if (c == '\n') {
      *complete = true;
      return true;
    }
    if (line->size() >= kMaxLineBytes) throw std::length_error("a line longer than 256 MiB");
    line->push_back(static_cast<char>(c));
  }
}

// Never throws (see the hasher): invalid UTF-8 becomes U+FFFD, as the hash saw it.
std::string compact(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string header_line(const nlohmann::json& header) {
  return std::string("{\"format\":\"") + kFormatName + "\",\"version\":" + std::to_string(kFormatVersion) +
         ",\"record\":\"header\",\"header\":" + compact(header) + "}\n";
}

}  // namespace

bool has_jsonl_extension(const std::string& path) {
  return path.size() >= 6 && path.compare(path.size() - 6, 6, ".jsonl") == 0;
}

bool is_jsonl_trace(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot open trace: " + std::strerror(errno));
  // Only a bounded prefix of the first line: a single-line JSON document can be huge.
  std::string first(64 << 10, '\0');
  in.getline(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(std::char_traits<char>::length(first.c_str()));
  // The JSON form starts with '{' followed by "dropped_events" or a newline; a JSON Lines trace's
  // first line is its header record.
  return first.find("\"record\":\"header\"") != std::string::npos ||
         first.find("\"record\": \"header\"") != std::string::npos;
}

// --- Writer. ---

JsonlTraceWriter::JsonlTraceWriter(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp"), buffer_(new char[kWriteBufferBytes]) {
  out_.rdbuf()->pubsetbuf(buffer_.get(), kWriteBufferBytes);
  out_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw std::runtime_error(path_ + ": cannot open for writing");
}

JsonlTraceWriter::~JsonlTraceWriter() {
  if (!finished_) {
    out_.close();
    std::remove(tmp_.c_str());
  }
}

void JsonlTraceWriter::header(const nlohmann::json& header) { out_ << header_line(header); }

void JsonlTraceWriter::event(const nlohmann::json& e) {
  const std::string body = compact(e);
  // {"record":"event", then the event's own fields: the same event as the JSON form's.
  out_ << "{\"record\":\"event\"" << (body.size() > 2 ? "," : "") << std::string_view(body).substr(1) << '\n';
  ++events_;
}

void JsonlTraceWriter::finish(const nlohmann::json& verdict, const std::string& hash) {
  out_ << compact(nlohmann::json{{"record", "verdict"}, {"verdict", verdict}}) << '\n';
  out_ << nlohmann::json{{"record", "end"}, {"events", events_}, {"dropped_events", 0}, {"trace_hash", hash}}.dump()
       << '\n';
  out_.flush();
  if (!out_) throw std::runtime_error(path_ + ": write failed");
  out_.close();
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error(path_ + ": cannot move the finished trace into place");
  }
  finished_ = true;
}

void write_jsonl(const Trace& trace, const std::string& path) {
  if (trace.dropped_events() > 0) {
    throw std::runtime_error(path + ": the trace dropped events; stream it from the run instead");
  }
  JsonlTraceWriter w(path);
  w.header(trace.header());
  for (const auto& e : trace.events()) w.event(e);
  w.finish(trace.verdict(), trace.hash());
}

// --- Reader. ---

JsonlTraceReader::JsonlTraceReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw std::invalid_argument(path + ": cannot open trace: " + std::strerror(errno));
  const nlohmann::json first = read_record();
  try {
    sim::ObjectReader r(first, "");
    if (r.string("record") != "header") throw sim::JsonError("/record", "the first record must be the header");
    const std::string format = r.string("format");
    if (format != kFormatName) throw sim::JsonError("/format", "not a wtsim trace (\"" + format + "\")");
    check_format_version(sim::as_u64(r.required("version"), "/version"));
    sim::ObjectReader header(r.required("header"), "/header");
    sim::as_u64(header.required("seed"), "/header/seed");
    header.required("scenario");
    header.required("fault_plan");  // replay reads it (the run's plan, as run)
    r.reject_unknown();
  } catch (const sim::JsonError& e) {
    fail(e.what());
  }
  header_ = first["header"];
  hasher_.emplace(header_);
}

void JsonlTraceReader::fail(const std::string& problem) const {
  throw std::invalid_argument(path_ + ": line " + std::to_string(line_) + ": " + sim::printable(problem));
}

nlohmann::json JsonlTraceReader::read_record() {
  std::string line;
  bool complete = false;
  bool got = false;
  try {
    got = read_line(in_, &line, &complete);
  } catch (const std::length_error& e) {
    ++line_;
    fail(e.what());
  }
  ++line_;
  if (!got) fail("the file ends here: truncated (missing final record)");
  nlohmann::json j;
  try {
    j = sim::parse_json(line, "");  // with its limits: a deeply nested line overflowed the stack
  } catch (const std::invalid_argument& e) {
    if (!complete) fail("an incomplete record at the end of the file: truncated (missing final record)");
    fail(e.what());
  }
  if (!j.is_object() || !j.contains("record") || !j["record"].is_string()) {
    fail("expected a record (an object with a \"record\" field), found " + sim::describe(j));
  }
  return j;
}

bool JsonlTraceReader::next(nlohmann::json* event) {
  if (done_) return false;
  nlohmann::json j = read_record();
  const std::string kind = j["record"].get<std::string>();
  if (kind == "verdict") {
    read_tail(std::move(j));
    return false;
  }
  if (kind != "event") fail("expected an event or the verdict record, found a \"" + kind + "\" record");
  j.erase("record");
  try {
    validate_event(j, events_, "");
  } catch (const sim::JsonError& e) {
    fail(e.what());
  }
  hasher_->event(j);
  ++events_;
  *event = std::move(j);
  return true;
}

void JsonlTraceReader::read_tail(nlohmann::json verdict_record) {
  try {
    sim::ObjectReader r(verdict_record, "");
    r.string("record");
    sim::ObjectReader verdict(r.required("verdict"), "/verdict");
    verdict.required("ok");
    r.reject_unknown();
  } catch (const sim::JsonError& e) {
    fail(e.what());
  }
  verdict_ = verdict_record["verdict"];
  nlohmann::json end = read_record();
  uint64_t count = 0, dropped = 0;
  try {
    sim::ObjectReader r(end, "");
    if (r.string("record") != "end") throw sim::JsonError("/record", "expected the end record after the verdict");
    count = sim::as_u64(r.required("events"), "/events");
    dropped = sim::as_u64(r.required("dropped_events"), "/dropped_events");
    hash_ = r.string("trace_hash");
    r.reject_unknown();
  } catch (const sim::JsonError& e) {
    fail(e.what());
  }
  if (count != events_) fail("the end record counts " + std::to_string(count) + " events, the file has " + std::to_string(events_));
  if (dropped != 0) fail("/dropped_events: a JSON Lines trace keeps every event, found " + std::to_string(dropped) + " dropped");
  const std::string computed = hasher_->finish(verdict_);
  if (computed != hash_) fail("/trace_hash: recorded " + hash_ + " but the content hashes to " + computed + " (edited or corrupt)");
  std::string rest;
  bool complete = false;
  if (read_line(in_, &rest, &complete)) {
    ++line_;
    fail("unexpected content after the end record");
  }
  done_ = true;
}

nlohmann::json load_jsonl(const std::string& path) {
  JsonlTraceReader reader(path);
  nlohmann::json events = nlohmann::json::array();
  nlohmann::json e;
  while (reader.next(&e)) events.push_back(std::move(e));
  return {{"format", kFormatName},       {"version", kFormatVersion}, {"header", reader.header()},
          {"events", std::move(events)}, {"dropped_events", 0},       {"verdict", reader.verdict()},
          {"trace_hash", reader.hash()}};
}

}  // namespace wtsim::traces
