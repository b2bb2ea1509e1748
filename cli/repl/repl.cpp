// `iputrain repl MODEL CONFIG`: load once, then inspect, re-plan, sweep and step interactively.
// On a terminal the input is edited with libedit (history, completion); otherwise commands are
// read line by line with no prompt, so `iputrain repl ... < script.txt` gives plain output.
#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/repl/commands.hpp"
#include "cli/repl/line_editor.hpp"
#include "cli/repl/state.hpp"

namespace iputrain::cli {

namespace {

struct ReplArgs : CommonArgs {
  bool echo = false;  //!< scripted mode: print each command as "> COMMAND" before its output
};

// Errors go to stderr, after whatever the command printed, so a transcript keeps their order.
void print_error(const std::string& message, const std::string& hint) {
  std::fflush(stdout);
  std::string out = "error: " + message + "\n";
  if (!hint.empty()) {
    out += "hint: " + hint + "\n";
  }
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

int run_repl(const ReplArgs& args) {
  const bool interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1;
  repl::State state(args.model, args.config, args.sets);
  for (const std::string& w : state.config().warnings()) {
    std::fputs(w.c_str(), stderr);
  }
  for (const std::string& w : state.model().warnings()) {
    std::fputs(w.c_str(), stderr);
  }
  if (interactive) {
    fmt::print("iputrain repl: model {} ({} parameters), config {}\n", state.model().name(),
               state.model().parameter_count(), args.config);
    if (state.has_plan()) {
      const Plan& p = state.plan();
      fmt::print("plan: {} x {} IPU{}, {} schedule, {:.0f} samples/s predicted\n", p.replicas(), p.ipus_per_replica(),
                 p.ipus_per_replica() == 1 ? "" : "s", p.schedule(), p.samples_per_second());
    }
    fmt::print("`help` lists the commands; TAB completes; Ctrl-D leaves.\n");
  }
  if (!state.has_plan()) {
    print_error("the config cannot be planned: " + state.plan_error(),
                "the REPL goes on without a plan; `set` or `unset` keys to repair it");
  }

  std::optional<repl::LineEditor> editor;
  if (interactive) {
    editor.emplace("iputrain> ", repl::default_history_path(),
                   [&state](const std::string& line, const std::string& word) {
                     return repl::complete(state, line, word);
                   });
  }
  bool failed = false;
  for (;;) {
    std::optional<std::string> line;
    if (editor) {
      line = editor->read();
    } else if (std::string text; std::getline(std::cin, text)) {
      line = std::move(text);
    }
    if (!line) {
      if (interactive) {
        fmt::print("\n");  // end the prompt's line after Ctrl-D
      }
      break;
    }
    if (args.echo && !interactive && line->find_first_not_of(" \t") != std::string::npos) {
      fmt::print("> {}\n", *line);
    }
    try {
      if (!repl::run_line(state, *line)) {
        break;
      }
    } catch (const Error& e) {
      print_error(e.diagnostic().message, e.hint());
      failed = true;
    } catch (const std::exception& e) {
      print_error(fmt::format("internal error: {}", e.what()), "this is a bug in iputrain; please report it");
      failed = true;
    }
    std::fflush(stdout);
  }
  // A script learns from the status whether every command succeeded.
  return failed && !interactive ? 1 : 0;
}

Runner add_repl(CLI::App& cmd) {
  auto a = std::make_shared<ReplArgs>();
  add_common(cmd, *a);
  cmd.add_flag("--echo", a->echo, "when reading a script: print each command as `> COMMAND` before its output");
  return [a](const CommandLine&) { return run_repl(*a); };
}

}  // namespace

const CommandDef kReplCommand{
    "repl", "inspect the plan, change keys and re-plan, sweep, run steps (commands from stdin when not a terminal)",
    add_repl};

}  // namespace iputrain::cli
