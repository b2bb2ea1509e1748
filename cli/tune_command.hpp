// `iputrain tune MODEL CONFIG`: the fastest layout that fits, as a ranked table and a config file.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "iputrain/tune.hpp"

// CLI11's App, declared: only the files that build the command line include CLI/CLI.hpp, whose
// inline code costs every unit that includes it seconds of compiling (bench/build_time.py).
namespace CLI {
class App;
}  // namespace CLI

namespace iputrain::cli {

//! Registers `tune` on `app` and what runs it in `table` (main.cpp's command table).
void add_tune_command(CLI::App& app, std::vector<std::pair<const CLI::App*, std::function<int()>>>& table);

//! The ranked table, the Pareto front and the search's figures, for people.
std::string tune_text(const TuneResult& result, int32_t top);

//! The same for tools (docs/cli.md, section `tune`).
std::string tune_json(const TuneResult& result);

}  // namespace iputrain::cli
