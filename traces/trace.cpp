#include "traces/trace.h"

#include <cassert>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "sim/json_reader.h"
#include "sim/random.h"
#include "traces/canonical_hash.h"

namespace wtsim::traces {

namespace {

// Compact serialisation; invalid UTF-8 (bytes from a corrupted file in a detail) becomes U+FFFD
// instead of throwing, since a streaming trace hashes inside the run. Valid text is unchanged.
std::string canonical(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string hex16(uint64_t h) {
  std::string out(16, '0');
  hex16_digits(h, out.data());
  return out;
}

void check_format_version(uint64_t version) {
  const std::string v = std::to_string(version), ours = std::to_string(kFormatVersion);
  if (version > static_cast<uint64_t>(kFormatVersion)) {
    throw sim::JsonError("/version", "trace format version " + v + " is newer than this tool reads (" + ours + ")");
  }
  if (version < static_cast<uint64_t>(kFormatVersion)) {
    throw sim::JsonError("/version", "trace format version " + v + " is older than this tool reads (" + ours +
                                         "): it has no history of invocations and fates. wtsim built from commit e740deb "
                                         "(2026-12-02, the last to write version 1) reads and replays it; or run its "
                                         "header's scenario and seed again with this tool for a version " + ours + " trace");
  }
}

bool has_unhashed_part(const nlohmann::json& event) {
  return event.contains("details") && event["details"].is_object() && event["details"].contains("measured");
}

nlohmann::json hashed_part(nlohmann::json event) {
  if (has_unhashed_part(event)) event["details"].erase("measured");
  assert(!has_unhashed_part(event));
  return event;
}

std::optional<Divergence> diverges_at(size_t index, const nlohmann::json& want, const nlohmann::json& have) {
  const nlohmann::json w = want.is_null() ? want : hashed_part(want);
  const nlohmann::json h = have.is_null() ? have : hashed_part(have);
  if (w == h) return std::nullopt;
  return Divergence{index, w, h};
}

std::optional<Divergence> first_divergence(const std::vector<nlohmann::json>& expected,
                                           const std::vector<nlohmann::json>& got) {
  const size_t n = std::max(expected.size(), got.size());
  for (size_t i = 0; i < n; ++i) {
    auto d = diverges_at(i, i < expected.size() ? expected[i] : nlohmann::json(), i < got.size() ? got[i] : nlohmann::json());
    if (d) return d;
  }
  return std::nullopt;
}

TraceHasher::TraceHasher(const nlohmann::json& header) : h_(hash_canonical(header, sim::fnv1a64(""))) {}

void TraceHasher::event(const nlohmann::json& e) {
  h_ = hash_canonical(has_unhashed_part(e) ? hashed_part(e) : e, h_);
}

// canonical() of {"i", "t_us", "actor", "kind", "details"}: its keys in sorted order, "details"
// left out when empty. Text that JSON would escape goes through the serialiser.
template <typename HashDetails>
void TraceHasher::event_from_parts(uint64_t index, int64_t t_us, const std::string& actor, const std::string& kind,
                                   HashDetails details) {
  const auto text = [this](std::string_view t) { h_ = sim::fnv1a64(t, h_); };
  const auto quoted = [this](std::string_view s) { h_ = hash_canonical_string(s, h_); };
  const auto number = [this](auto n) { h_ = hash_canonical_integer(n, h_); };
  text("{\"actor\":"), quoted(actor);
  h_ = details(h_);
  text(",\"i\":"), number(index), text(",\"kind\":"), quoted(kind), text(",\"t_us\":"), number(t_us), text("}");
}

void TraceHasher::event(uint64_t index, int64_t t_us, const std::string& actor, const std::string& kind,
                        const nlohmann::json& details) {
  assert(!(details.is_object() && details.contains("measured")));  // Trace builds those events
  event_from_parts(index, t_us, actor, kind, [&](uint64_t h) {
    return details.empty() ? h : hash_canonical(details, sim::fnv1a64(",\"details\":", h));
  });
}

void TraceHasher::event(uint64_t index, int64_t t_us, const std::string& actor, const std::string& kind,
                        const EventBody& details) {
  event_from_parts(index, t_us, actor, kind,
                   [&](uint64_t h) { return details.hash_canonical(sim::fnv1a64(",\"details\":", h)); });
}

std::string TraceHasher::finish(const nlohmann::json& verdict) const {
  nlohmann::json witness = verdict;
  if (witness.is_object()) witness.erase("measured");  // as for events: measured values aside
  uint64_t h = hash_canonical(witness, h_);
  h = sim::fnv1a64("0", h);  // no event is left out of the chain
  return hex16(h);
}

void Trace::stream_to(EventSink* sink) {
  assert(sink != nullptr && event_count() == 0 && sink_ == nullptr);
  sink_ = sink;
  sink_->header(header_);
}

void Trace::hold(sim::Nanos at_ns, const std::string& actor, const std::string& kind, std::unique_ptr<EventBody> details) {
  assert(details != nullptr);
  release_held();
  held_ = Held{at_ns, actor, kind, std::move(details)};
}

void Trace::release_held() {
  if (!held_) return;
  Held h = std::move(*held_);
  held_.reset();
  if (keeps_next_event()) {
    append(h.at_ns, h.actor, h.kind, h.details->to_json());
    return;
  }
  hasher_.event(event_count(), h.at_ns / sim::kNsPerUs, h.actor, h.kind, *h.details);  // never built
  ++(sink_ != nullptr ? streamed_ : dropped_);
}

uint64_t Trace::event(sim::Nanos at_ns, const std::string& actor, const std::string& kind, nlohmann::json details) {
  release_held();
  return append(at_ns, actor, kind, std::move(details));
}

uint64_t Trace::append(sim::Nanos at_ns, const std::string& actor, const std::string& kind, nlohmann::json details) {
  assert(!held_);
  const uint64_t index = event_count();
  const bool keep = keeps_next_event();
  if (!keep && !details.contains("measured")) {  // hashed from its parts, never built
    hasher_.event(index, at_ns / sim::kNsPerUs, actor, kind, details);
    ++(sink_ != nullptr ? streamed_ : dropped_);
    return index;
  }
  nlohmann::json e = {{"i", index}, {"t_us", at_ns / sim::kNsPerUs}, {"actor", actor}, {"kind", kind}};
  if (!details.empty()) e["details"] = std::move(details);
  hasher_.event(e);
  if (sink_ != nullptr) {
    sink_->event(e);
    ++streamed_;
  } else if (keep) {
    events_.push_back(std::move(e));
  } else {
    ++dropped_;
  }
  return index;
}

nlohmann::json Trace::to_json() const {
  assert(!streaming());
  assert(!held_ && "set_verdict writes the held event");
  nlohmann::json j;
  j["format"] = kFormatName;
  j["version"] = kFormatVersion;
  j["header"] = header_;
  j["events"] = events_;
  j["dropped_events"] = dropped_;
  j["verdict"] = verdict_;
  j["trace_hash"] = hash();
  return j;
}

std::string Trace::hash() const {
  assert(!held_ && "set_verdict writes the held event");
  return hasher_.finish(verdict_);
}

std::string Trace::compute_hash(const nlohmann::json& header, const nlohmann::json& events, const nlohmann::json& verdict) {
  TraceHasher h(header);
  for (const auto& e : events) h.event(e);
  return h.finish(verdict);
}

// The same document as to_json(), laid out for reading and for size: header and verdict
// indented, one event per line (compact), in to_json()'s key order.
void Trace::write_document(std::ostream& out) const {
  const auto pretty = [](const nlohmann::json& j) {
    std::string s = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
    for (size_t at = s.find('\n'); at != std::string::npos; at = s.find('\n', at + 2)) s.insert(at + 1, " ");
    return s;
  };
  out << "{\n \"dropped_events\": " << dropped_ << ",\n \"events\": [";
  for (size_t i = 0; i < events_.size(); ++i) {
    out << (i == 0 ? "\n  " : ",\n  ") << canonical(events_[i]);
  }
  out << (events_.empty() ? "],\n" : "\n ],\n");
  out << " \"format\": \"" << kFormatName << "\",\n \"header\": " << pretty(header_) << ",\n";
  out << " \"trace_hash\": \"" << hash() << "\",\n \"verdict\": " << pretty(verdict_) << ",\n";
  out << " \"version\": " << kFormatVersion << "\n}\n";
}

void Trace::write(const std::string& path) const {
  assert(!streaming());
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(path + ": cannot open for writing");
    write_document(out);
    if (!out.flush()) throw std::runtime_error(path + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot move the finished trace into place");
  }
}

}  // namespace wtsim::traces
