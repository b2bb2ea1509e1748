// An iputrain command as a row of the command table (command_list.hpp): its name, its help line
// and a function that adds its arguments and options to CLI11's subcommand and returns what runs
// it. Each command's file holds its row, the arguments it parses into and its work; main.cpp
// adds the rows in the list's order and runs the one parsed.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "cli/usage.hpp"

// CLI11's App, declared: only the files that build the command line include CLI/CLI.hpp, whose
// inline code costs every unit that includes it seconds of compiling (bench/build_time.py).
namespace CLI {
class App;
}  // namespace CLI

namespace iputrain::cli {

struct CommonArgs;

//! What runs a parsed command; the command line locates its errors. Returns the exit status.
using Runner = std::function<int(const CommandLine& line)>;

struct CommandDef {
  std::string_view name;  //!< as typed: "bench-data"
  std::string_view help;  //!< the line `iputrain --help` shows
  //! Adds the command's arguments and options (or its own commands) to `cmd`, each parsed into
  //! arguments the returned runner holds.
  Runner (*add)(CLI::App& cmd);
};

//! The commands, in command_list.hpp's order (the order of `iputrain --help`).
const std::vector<const CommandDef*>& command_table();

//! MODEL, CONFIG and --set, which most commands take first.
void add_common(CLI::App& cmd, CommonArgs& args);

#define IPUTRAIN_COMMAND(Name) extern const CommandDef k##Name##Command;
#include "cli/command_list.hpp"
#undef IPUTRAIN_COMMAND

}  // namespace iputrain::cli
