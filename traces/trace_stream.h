#pragma once
// Streaming traces (JSON Lines), for runs too large to hold in memory. One record per line:
//
//   {"format":"wtsim-trace","version":2,"record":"header","header":{...}}
//   {"record":"event","i":0,"t_us":0,"actor":"node","kind":"started",...}   one per event
//   {"record":"verdict","verdict":{...}}
//   {"record":"end","events":N,"dropped_events":0,"trace_hash":"..."}
//
// The events and the hash are those of the single-document form of the same run (the same
// TraceHasher chain), and nothing is dropped. The file is written under a temporary name and
// renamed once the end record is in, so a file without its end record was cut short.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include "traces/trace.h"

namespace wtsim::traces {

// True if `path` holds a JSON Lines trace (its first line is a record), false for the
// single-document form. Throws std::invalid_argument if the file cannot be opened.
bool is_jsonl_trace(const std::string& path);
// True if the name ends in ".jsonl": how `wtsim run --trace` and `shrink -o` pick the form.
bool has_jsonl_extension(const std::string& path);

class JsonlTraceWriter : public EventSink {
 public:
  // Opens PATH.tmp; throws std::runtime_error naming `path` if it cannot.
  explicit JsonlTraceWriter(std::string path);
  ~JsonlTraceWriter() override;  // an unfinished file is removed
  void header(const nlohmann::json& header) override;
  void event(const nlohmann::json& e) override;
  // Writes the verdict and end records and moves the file into place; throws std::runtime_error.
  void finish(const nlohmann::json& verdict, const std::string& hash);

 private:
  std::string path_, tmp_;
  std::ofstream out_;
  std::unique_ptr<char[]> buffer_;
  uint64_t events_ = 0;
  bool finished_ = false;
};

// An in-memory (finished) trace written as JSON Lines, via a temporary file.
void write_jsonl(const Trace& trace, const std::string& path);

// Reads a JSON Lines trace record by record, validating as it goes (the same checks as the
// single-document form). Problems throw std::invalid_argument "FILE: line N: problem".
class JsonlTraceReader {
 public:
  explicit JsonlTraceReader(const std::string& path);  // reads and checks the header line
  const nlohmann::json& header() const { return header_; }
  // The next event (without its "record" field), or false once the events are over; then the
  // verdict and end records have been read and the event count and hash checked.
  bool next(nlohmann::json* event);
  const nlohmann::json& verdict() const { return verdict_; }
  const std::string& hash() const { return hash_; }
  uint64_t events() const { return events_; }

 private:
  nlohmann::json read_record();  // the next line as an object with a "record" field
  [[noreturn]] void fail(const std::string& problem) const;
  void read_tail(nlohmann::json verdict_record);

  std::string path_;
  std::ifstream in_;
  uint64_t line_ = 0;
  nlohmann::json header_, verdict_;
  std::optional<TraceHasher> hasher_;
  uint64_t events_ = 0;
  std::string hash_;
  bool done_ = false;
};

// A whole JSON Lines trace as the single-document form's JSON (format, version, header, events,
// dropped_events, verdict, trace_hash), validated.
nlohmann::json load_jsonl(const std::string& path);

}  // namespace wtsim::traces
