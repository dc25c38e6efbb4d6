#pragma once
// A run's trace: header (tool version, seed, scenario, fault plan, cost model), the events in
// order (virtual time, actor, kind, details), and the verdict. Its hash is the determinism
// witness: the same seed and scenario must give the same hash.
//
// One exception, kept for old traces: an event's details (and the verdict) may hold a "measured"
// object, left out of the hash and of replay comparisons. Before WiredTiger's threads were fibers
// of the seeded scheduler, file sizes, WiredTiger's statistics and its background messages went
// there because those threads shifted them between runs of one seed; nothing writes one now.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "sim/virtual_clock.h"

namespace wtsim::traces {

constexpr const char* kFormatName = "wtsim-trace";
// 2: the history (commit invocations and completions, flushes, recovered-state digests).
constexpr int kFormatVersion = 2;
// Throws sim::JsonError at /version unless this tool reads `version` (exactly kFormatVersion).
void check_format_version(uint64_t version);
// 16 lowercase hex digits: how the trace writes its hash and every digest.
std::string hex16(uint64_t h);

// An event's details that their writer holds in a form of its own while the event is held
// (Trace::hold): built as JSON only when the trace keeps the event, hashed from the writer's
// fields when it does not. A run that keeps no events builds no JSON for them.
class EventBody {
 public:
  virtual ~EventBody() = default;
  virtual nlohmann::json to_json() const = 0;  // a non-empty object
  // FNV-1a of to_json()'s canonical text, continuing from `basis`, without building it.
  virtual uint64_t hash_canonical(uint64_t basis) const = 0;
};

// The trace hash, computed incrementally: FNV-1a over the header's serialisation, then each event's
// (its "measured" values aside), then the verdict's, then "0". Every event of a run is in the
// chain, kept or not, so the hash never depends on the trace's form (JSON, JSON Lines, none).
// The same chain serves the in-memory form, the streaming writer and the streaming reader.
class TraceHasher {
 public:
  explicit TraceHasher(const nlohmann::json& header);
  void event(const nlohmann::json& e);
  // The same step for the event Trace would build from these parts, without building it.
  void event(uint64_t index, int64_t t_us, const std::string& actor, const std::string& kind,
             const nlohmann::json& details);
  void event(uint64_t index, int64_t t_us, const std::string& actor, const std::string& kind, const EventBody& details);
  std::string finish(const nlohmann::json& verdict) const;  // 16 hex digits

 private:
  template <typename HashDetails>
  void event_from_parts(uint64_t index, int64_t t_us, const std::string& actor, const std::string& kind, HashDetails details);

  uint64_t h_;
};

// The part of an event the hash covers and a replay compares: all of it but details.measured.
nlohmann::json hashed_part(nlohmann::json event);
bool has_unhashed_part(const nlohmann::json& event);

// Where a re-run first differs from the recorded events, in their hashed parts.
struct Divergence {
  size_t event_index = 0;
  nlohmann::json expected, got;  // null past either end
};
// The first index at which `got` differs from `expected` (two event arrays), if any.
std::optional<Divergence> first_divergence(const std::vector<nlohmann::json>& expected,
                                           const std::vector<nlohmann::json>& got);
// One step of the same rule for events compared as they stream: null `want` or `have` past an end.
std::optional<Divergence> diverges_at(size_t index, const nlohmann::json& want, const nlohmann::json& have);

// Receives the header, then each event as it is produced (streaming traces, on-the-fly replay).
// Called from inside the run: must not throw and must not touch the run.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void header(const nlohmann::json& header) = 0;
  virtual void event(const nlohmann::json& e) = 0;
  // False: the sink ignores events, so the trace hashes them without building them.
  virtual bool wants_events() const { return true; }
};

// Keeps nothing: a run whose trace is not written still hashes every event (with no limit on
// their number, as a streamed trace does) without holding them in memory.
class HashOnlySink : public EventSink {
 public:
  void header(const nlohmann::json&) override {}
  void event(const nlohmann::json&) override {}
  bool wants_events() const override { return false; }
};

class Trace {
 public:
  // Beyond this, events are hashed and counted, not kept (a JSON Lines trace keeps every one).
  static constexpr size_t kMaxEvents = 2'000'000;

  explicit Trace(nlohmann::json header, size_t max_events = kMaxEvents)
      : header_(std::move(header)), max_events_(max_events), hasher_(header_) {}

  // Appends an event and returns its index.
  uint64_t event(sim::Nanos at_ns, const std::string& actor, const std::string& kind,
                 nlohmann::json details = nlohmann::json::object());
  // Holds an event back so that its writer may still complete it in place (a commit whose
  // completion comes before any other event is one event: docs/reference/trace-format.md, "Checking a trace yourself").
  // It is written, with the index it would have had, before the next event or by set_verdict.
  void hold(sim::Nanos at_ns, const std::string& actor, const std::string& kind, std::unique_ptr<EventBody> details);
  // The held event's details, or nullptr when nothing is held.
  EventBody* held_details() { return held_ ? held_->details.get() : nullptr; }
  void release_held();
  void set_verdict(nlohmann::json verdict) {
    release_held();
    verdict_ = std::move(verdict);
  }
  const nlohmann::json& verdict() const { return verdict_; }

  const nlohmann::json& header() const { return header_; }
  const std::vector<nlohmann::json>& events() const { return events_; }  // empty when streaming
  uint64_t dropped_events() const { return dropped_; }
  uint64_t event_count() const { return events_.size() + dropped_ + streamed_ + (held_ ? 1 : 0); }

  // Streaming mode: from now on every event goes to `sink` (which must outlive the trace) and is
  // not kept, so kMaxEvents does not apply. Call before the first event, with the header final.
  void stream_to(EventSink* sink);
  bool streaming() const { return sink_ != nullptr; }

  // The whole trace as one JSON document, with its hash (not in streaming mode).
  nlohmann::json to_json() const;
  // 16 hex digits of FNV-1a over the canonical serialisation of header, every event and verdict.
  std::string hash() const;
  // The hash of a trace that kept every event (a file with dropped events cannot be rechecked).
  static std::string compute_hash(const nlohmann::json& header, const nlohmann::json& events, const nlohmann::json& verdict);
  // Writes to `path` via a temporary file and rename, so a failed write never leaves half a
  // trace. Throws std::runtime_error naming the path. Not in streaming mode.
  void write(const std::string& path) const;
  void write_document(std::ostream& out) const;

 private:
  struct Held {
    sim::Nanos at_ns;
    std::string actor, kind;
    std::unique_ptr<EventBody> details;
  };
  // Whether the next event is kept (in memory or by the sink), or only hashed and counted.
  bool keeps_next_event() const { return sink_ != nullptr ? sink_->wants_events() : events_.size() < max_events_; }
  uint64_t append(sim::Nanos at_ns, const std::string& actor, const std::string& kind, nlohmann::json details);

  std::optional<Held> held_;
  nlohmann::json header_;
  std::vector<nlohmann::json> events_;
  nlohmann::json verdict_ = nlohmann::json::object();
  uint64_t dropped_ = 0;
  EventSink* sink_ = nullptr;
  size_t max_events_;   // kept in memory at most (not streaming)
  TraceHasher hasher_;  // every event so far, kept, dropped or streamed
  uint64_t streamed_ = 0;
};

}  // namespace wtsim::traces
