// iputrain — command-line entry point: argument parsing and the mapping of errors to messages
// and exit statuses (2: bad model/config/arguments or a config that cannot be planned, 1: data or
// run failure, 70: internal bug).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "cli/command.hpp"
#include "cli/usage.hpp"
#include "iputrain/instances.hpp"
#include "iputrain/iputrain.hpp"
#include "iputrain/version.hpp"

namespace {

int exit_status(iputrain::ErrorKind kind) {
  using iputrain::ErrorKind;
  switch (kind) {
    case ErrorKind::Syntax:
    case ErrorKind::Semantic:
    case ErrorKind::Config:
    case ErrorKind::Plan:
    case ErrorKind::Usage: return 2;
    case ErrorKind::Internal: return 70;
    default: return 1;
  }
}

//! Every command's CLI11 subcommand and what runs it; one is parsed (require_subcommand).
using Commands = std::vector<std::pair<const CLI::App*, iputrain::cli::Runner>>;

// The rows of the command table (cli/command_list.hpp), added in its order.
Commands add_commands(CLI::App& app) {
  Commands out;
  for (const iputrain::cli::CommandDef* def : iputrain::cli::command_table()) {
    CLI::App* cmd = app.add_subcommand(std::string(def->name), std::string(def->help));
    out.emplace_back(cmd, def->add(*cmd));
  }
  return out;
}

// The command parsed, down to the last of its own commands (`config show`).
const CLI::App& innermost(const CLI::App& cmd) {
  const CLI::App* at = &cmd;
  for (std::vector<CLI::App*> subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) {
    at = subs.front();
  }
  return *at;
}

//! Runs the parsed command; an error is printed (prefixed `who`) and mapped to an exit status.
int run_parsed(const Commands& commands, const iputrain::cli::CommandLine& line, const std::string& who) {
  try {
    for (const auto& [cmd, run] : commands) {
      if (cmd->parsed()) {
        iputrain::cli::check_file_roles(innermost(*cmd), line);
        return run(line);
      }
    }
    throw iputrain::Error(iputrain::ErrorKind::Internal, "the command line named no command this build runs");
  } catch (const iputrain::Error& e) {
    std::fflush(stdout);
    std::cerr << who << e.render() << iputrain::cli::mpirun_root_note(e);
    return exit_status(e.kind());
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << who
              << fmt::format("internal error: {}\nhint: this is a bug in iputrain; please report it\n", e.what());
    return 70;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // Lines reach a pipe or a log file as they are printed (progress, then a kill, loses nothing).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"iputrain: declarative training on a cluster of virtual IPUs", "iputrain"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("iputrain ") + iputrain::version());

  const Commands commands = add_commands(app);

  const iputrain::cli::CommandLine line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // An unknown word gets a located message with the nearest valid one; CLI11 words the rest.
    if (e.get_exit_code() != 0) {
      if (const std::optional<iputrain::Error> why = iputrain::cli::explain_refusal(app, line)) {
        std::cerr << why->render();
        return 2;
      }
      if (const std::optional<iputrain::Error> why = iputrain::cli::explain_missing_path(e.what(), line)) {
        std::cerr << why->render();
        return 2;
      }
    }
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }

  // Under mpirun: join the run's other instances (docs/distributed.md). The first instance speaks
  // for all; the others print only their errors, each naming its instance.
  iputrain::Instances instances;
  try {
    instances = iputrain::join_instances();
  } catch (const iputrain::Error& e) {
    std::cerr << e.render();
    return exit_status(e.kind());
  }
  const std::string who = instances.count > 1 ? fmt::format("instance {} of {}: ", instances.index, instances.count) : "";
  if (instances.count > 1 && instances.index > 0 && std::freopen("/dev/null", "w", stdout) == nullptr) {
    std::cerr << who << "cannot silence this instance's output\n";
  }
  const int status = run_parsed(commands, line, who);
  if (status != 0 && status < 128 && instances.count > 1) {
    // The other instances may be waiting for this one: end them all now, with this status.
    std::fflush(stdout);
    std::cerr.flush();
    iputrain::abort_instances(status);
  }
  if (status >= 128 && instances.count > 1) {
    // Stopped by a signal, the checkpoint written: leave without MPI_Finalize. mpirun forwards
    // Ctrl-C as SIGTERM and kills the job a second later (odls_base_sigkill_timeout); a finalize
    // would wait for daemons that are already tearing the job down and be killed half-way.
    std::fflush(stdout);
    std::cerr.flush();
    std::_Exit(status);
  }
  iputrain::leave_instances();
  return status;
}
