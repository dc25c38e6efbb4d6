#include "traces/client_operations.h"

#include <array>
#include <string_view>

namespace wtsim::traces {

bool is_client_actor(const std::string& actor) {
  // The name before its member or generation suffix (".m1", ".g2"), without its number ("writer-2").
  std::string_view base = std::string_view(actor).substr(0, actor.find('.'));
  while (!base.empty() && ((base.back() >= '0' && base.back() <= '9') || base.back() == '-')) base.remove_suffix(1);
  static constexpr std::array<std::string_view, 11> kClients = {
      "appender", "client", "client-op", "delete-job", "hot-writer", "inserter",
      "query-loop", "script-client", "toucher", "warm-writer", "writer"};
  for (std::string_view c : kClients) {
    if (base == c) return true;
  }
  return false;
}

void ClientOperationCounter::add(const nlohmann::json& event) {
  const auto kind = event.find("kind");
  if (kind == event.end() || !kind->is_string()) return;
  if (*kind == "client_invoke") {
    ++invocations_;
    return;
  }
  if (*kind != "commit" && *kind != "read") return;
  const auto actor = event.find("actor");
  if (actor != event.end() && actor->is_string() && is_client_actor(actor->get<std::string>())) ++commits_and_reads_;
}

}  // namespace wtsim::traces
