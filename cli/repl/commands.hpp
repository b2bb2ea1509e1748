// The REPL's commands: one table row per command (name, usage, help text, what its arguments
// complete to, handler), so `help`, tab completion and dispatch read the same list.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/repl/line_editor.hpp"
#include "cli/repl/state.hpp"

namespace iputrain::repl {

//! A command line split at blanks; `rest` is everything after the command word (for `set`, whose
//! value may hold blanks).
struct Args {
  std::vector<std::string> words;
  std::string rest;
};

//! What a command's arguments complete to.
enum class ArgKind { None, Command, Key, ShowTopic, MemoryTopic, Weight };

struct Command {
  std::string name;
  std::string usage;    //!< "set KEY=VALUE"
  std::string summary;  //!< one line, for `help`
  std::string detail;   //!< for `help NAME`
  ArgKind args = ArgKind::None;
  //! Runs the command; false ends the REPL. Failures are thrown as iputrain::Error.
  std::function<bool(State&, const Args&)> run;
};

const std::vector<Command>& commands();

//! Runs one input line (blank lines and `#` comments do nothing). False: the user asked to quit.
//! Throws iputrain::Error for a bad command or a failing one.
bool run_line(State& state, const std::string& line);

//! Tab completion for `line` (the text before the word) and `word` (the word typed so far).
Completion complete(const State& state, const std::string& line, const std::string& word);

}  // namespace iputrain::repl
