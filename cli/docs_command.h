#pragma once
// `wtsim docs [--out DIR] [--check]`: the reference pages whose truth is the code (properties,
// coverage markers, planted bugs, verbs and their options), written as Markdown. --check writes
// nothing and exits 1 if a page on disk differs, so a test keeps docs/reference current.
#include <CLI/CLI.hpp>

#include <map>
#include <string>

namespace wtsim::cli {

// The scenario fields page (docs_scenario_fields.cpp), under `banner`.
std::string scenario_fields_page(const char* banner);
// File name -> content, for every generated page.
std::map<std::string, std::string> reference_pages(const CLI::App& app);
int docs_command(const CLI::App& app, const std::string& out_dir, bool check);

}  // namespace wtsim::cli
