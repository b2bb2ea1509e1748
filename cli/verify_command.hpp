// `iputrain verify MODEL CONFIG`: the config's plan against the one-IPU run, bit for bit.
#pragma once

#include <functional>
#include <utility>
#include <vector>

// CLI11's App, declared: only the files that build the command line include CLI/CLI.hpp, whose
// inline code costs every unit that includes it seconds of compiling (bench/build_time.py).
namespace CLI {
class App;
}  // namespace CLI

namespace iputrain::cli {

//! Registers `verify` on `app` and what runs it in `table` (main.cpp's command table).
void add_verify_command(CLI::App& app, std::vector<std::pair<const CLI::App*, std::function<int()>>>& table);

}  // namespace iputrain::cli
