#pragma once
// How the command line reports its own mistakes: one form, `wtsim: WHERE: WHAT`, exit 2, never a
// library's raw text. An unknown verb is named, with the nearest known one suggested.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

namespace wtsim::cli {

// CLI11 check for a seed: decimal digits, 0..2^64-1 (no sign, no wrap-around).
CLI::Validator seed_check();

// The known verb closest to `word` by edit distance, if it is close enough to be a typo.
std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& known);
// Exit code 2 with a message if argv's first word is not a verb `app` knows (options aside).
std::optional<int> refuse_unknown_verb(const CLI::App& app, int argc, const char* const* argv);
// Prints a parse error as `wtsim: ...` (help and --version print as they are); returns the exit code.
int report_parse_error(const CLI::App& app, const CLI::ParseError& e);

}  // namespace wtsim::cli
