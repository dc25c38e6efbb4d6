#include "cli/usage.h"

#include <algorithm>
#include <cassert>
#include <cstdio>

#include "runs/exit_code.h"
#include "runs/explore.h"
#include "sim/json_reader.h"

namespace wtsim::cli {
namespace {

constexpr size_t kWordMax = 64;  // longer words are never typos of a verb

size_t edit_distance(const std::string& a, const std::string& b) {
  assert(a.size() <= kWordMax && b.size() <= kWordMax);
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::vector<std::string> verb_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  return names;
}

}  // namespace

CLI::Validator seed_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        uint64_t seed = 0;
        if (runs::parse_seed(text, &seed)) return "";
        return "expected a seed in 0..18446744073709551615 (decimal digits), found '" + text + "'";
      },
      "SEED", "seed");
}

std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& known) {
  if (word.empty() || word.size() > kWordMax) return std::nullopt;
  std::optional<std::string> best;
  size_t best_distance = kWordMax;
  for (const std::string& k : known) {
    size_t d = edit_distance(word, k);
    if (k.rfind(word, 0) == 0) d = std::min<size_t>(d, 1);  // an abbreviation
    if (d < best_distance) best = k, best_distance = d;
  }
  if (best_distance > std::max<size_t>(2, word.size() / 3)) return std::nullopt;  // too far to be a typo
  return best;
}

std::optional<int> refuse_unknown_verb(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;  // options, or no verb (CLI11 says so)
  const std::string word = argv[1];
  const std::vector<std::string> known = verb_names(app);
  if (std::find(known.begin(), known.end(), word) != known.end()) return std::nullopt;
  std::string hint = "; run 'wtsim --help' for the verbs";
  if (const auto near = nearest(word, known)) hint = "; did you mean '" + *near + "'?";
  std::fprintf(stderr, "wtsim: unknown verb '%s'%s\n", sim::printable(word).c_str(), hint.c_str());
  return runs::kBadInput;
}

int report_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version: printed as they are
  std::string where = "wtsim";
  for (const CLI::App* sub : app.get_subcommands()) where += ": " + sub->get_name();
  std::fprintf(stderr, "%s: %s\n", where.c_str(), e.what());
  std::fprintf(stderr, "Run '%s --help' for its options.\n", where == "wtsim" ? "wtsim" : ("wtsim " + where.substr(7)).c_str());
  return runs::kBadInput;
}

}  // namespace wtsim::cli
