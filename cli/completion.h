#pragma once
// `wtsim completion bash`: a bash completion script written from the verbs CLI11 knows, so it
// cannot fall behind them: verbs, each verb's options, --format's values, files elsewhere.
#include <CLI/CLI.hpp>

#include <string>

namespace wtsim::cli {

std::string bash_completion(const CLI::App& app);
int completion_command(const CLI::App& app, const std::string& shell);

}  // namespace wtsim::cli
