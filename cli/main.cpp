// iputrain — command-line entry point: argument parsing and the mapping of errors to messages
// and exit statuses (2: bad model/config/arguments or a config that cannot be planned, 1: data or
// run failure, 70: internal bug).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <optional>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/tune_command.hpp"
#include "cli/usage.hpp"
#include "cli/verify_command.hpp"
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

void add_common(CLI::App* cmd, iputrain::cli::CommonArgs& args) {
  cmd->add_option("model", args.model, "model file (*.ipu)")->required()->check(CLI::ExistingFile);
  cmd->add_option("config", args.config, "config file (*.toml)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--set", args.sets, "override a config key: --set data.batch_size=64 (repeatable)")
      ->type_name("KEY=VALUE");
}

//! What the options of every command are parsed into.
struct Args {
  iputrain::cli::TrainArgs train;
  iputrain::cli::ExportArgs export_args;
  iputrain::cli::EvalArgs eval;
  iputrain::cli::PredictArgs predict;
  iputrain::cli::BenchDataArgs bench_data;
  iputrain::cli::CommonArgs check;
  iputrain::cli::PlanArgs plan;
  iputrain::cli::ReplArgs repl;
  iputrain::cli::ConfigShowArgs config_show;
  std::string explain_key;
};

//! Every command and what runs it; one is parsed (require_subcommand).
using CommandTable = std::vector<std::pair<const CLI::App*, std::function<int()>>>;

// The commands that run a model: train, export, eval, predict.
void add_run_commands(CLI::App& app, Args& a, CommandTable& table) {
  CLI::App* train_cmd = app.add_subcommand("train", "train a model; logs the outfeed, then evaluates on the test split");
  add_common(train_cmd, a.train);
  train_cmd->add_option("--init-from", a.train.init_from, "start from these weights (safetensors, or a checkpoint's)")
      ->check(CLI::ExistingPath)
      ->type_name("FILE");
  train_cmd->add_option("--save", a.train.save, "write the trained weights here (safetensors)")->type_name("FILE");
  train_cmd->add_flag("-q,--quiet", a.train.quiet, "print only the summary");
  train_cmd->add_flag("--no-eval", a.train.no_eval, "do not evaluate on data.test after training");
  train_cmd->add_flag("-v,--verbose", a.train.verbose,
                      "the run report in full: the bubble measured, simulated, planned and analytic");
  train_cmd
      ->add_option("--log-format", a.train.log_format,
                   "text (for people) or json (one JSON object per line: steps, validations, summary, test)")
      ->check(CLI::IsMember({"text", "json"}));
  train_cmd
      ->add_option("--trace", a.train.trace, "write a Chrome trace (Perfetto) of the run: one track per virtual IPU")
      ->type_name("FILE");
  train_cmd
      ->add_option("--outfeed", a.train.outfeed,
                   "write what the outfeed held, per step, to FILE.csv or FILE.npy (one .npy per value)")
      ->type_name("FILE");
  train_cmd
      ->add_option("--resume", a.train.resume,
                   "continue from a checkpoint: a checkpoint.dir (its newest) or one step-*.safetensors file")
      ->type_name("DIR|FILE");
  train_cmd->add_flag("--no-checkpoint", a.train.no_checkpoint,
                      "write no checkpoint, whatever the config's [checkpoint] says");
  train_cmd->add_flag("--overwrite", a.train.overwrite,
                      "let a new run use a checkpoint directory that holds another run's checkpoints (deletes them)");

  CLI::App* export_cmd = app.add_subcommand("export",
                                            "write a checkpoint's weights (or a weight file's, checked against the "
                                            "model) as a plain weight file (safetensors)");
  add_common(export_cmd, a.export_args);
  export_cmd
      ->add_option(
          "--from", a.export_args.from,
          "checkpoint directory (its newest), step-*.safetensors file, or weight file (read as --init-from reads it)")
      ->required()
      ->type_name("DIR|FILE");
  export_cmd->add_option("-o,--out", a.export_args.out, "weight file to write")->required()->type_name("FILE");

  CLI::App* eval_cmd = app.add_subcommand("eval", "mean of each model output over a data split");
  add_common(eval_cmd, a.eval);
  eval_cmd
      ->add_option("--weights", a.eval.weights,
                   "weights to evaluate (safetensors, or a checkpoint file or directory); required when the model has "
                   "parameters")
      ->check(CLI::ExistingPath)
      ->type_name("FILE|DIR");
  eval_cmd->add_option("--split", a.eval.split, "test, train or validation (data.validation, data.validation_split)")
      ->check(CLI::IsMember({"test", "train", "validation"}));

  CLI::App* predict_cmd =
      app.add_subcommand("predict", "per-sample model outputs over a data split, as .npy arrays or CSV");
  add_common(predict_cmd, a.predict);
  predict_cmd
      ->add_option("--weights", a.predict.weights,
                   "weights to predict with (safetensors, or a checkpoint file or directory); required when the model "
                   "has parameters")
      ->check(CLI::ExistingPath)
      ->type_name("FILE|DIR");
  predict_cmd
      ->add_option("--split", a.predict.split, "test, train or validation (data.validation, data.validation_split)")
      ->check(CLI::IsMember({"test", "train", "validation"}));
  predict_cmd
      ->add_option("--output", a.predict.outputs,
                   "an output or named tensor of the model to write (repeatable; default: every `output per_sample`)")
      ->type_name("NAME");
  predict_cmd
      ->add_option("-o,--out", a.predict.out,
                   "FILE.npy, FILE.csv, or a directory for one NAME.npy per output (default: a table on stdout)")
      ->type_name("OUT");
  predict_cmd->add_option("--format", a.predict.format, "npy or csv (default: from the -o path)")
      ->check(CLI::IsMember({"npy", "csv"}));

  table.emplace_back(train_cmd, [&a] { return iputrain::cli::run_train(a.train); });
  table.emplace_back(eval_cmd, [&a] { return iputrain::cli::run_eval(a.eval); });
  table.emplace_back(export_cmd, [&a] { return iputrain::cli::run_export(a.export_args); });
  table.emplace_back(predict_cmd, [&a] { return iputrain::cli::run_predict(a.predict); });
}

// The commands that measure, check, plan and explore: bench-data, check, plan, repl.
void add_inspect_commands(CLI::App& app, Args& a, CommandTable& table) {
  CLI::App* bench_data_cmd =
      app.add_subcommand("bench-data", "measure the host feed alone per epoch (the seed's dataset_benchmark)");
  add_common(bench_data_cmd, a.bench_data);
  bench_data_cmd->add_option("--epochs", a.bench_data.epochs, "epochs to run")->check(CLI::PositiveNumber);
  bench_data_cmd
      ->add_option("--elements", a.bench_data.elements, "micro-batches per epoch (default: the split's whole batches)")
      ->check(CLI::NonNegativeNumber);
  bench_data_cmd->add_option("--split", a.bench_data.split, "train, test or validation")
      ->check(CLI::IsMember({"test", "train", "validation"}));
  bench_data_cmd
      ->add_option("--format", a.bench_data.format, "table (for people) or json (the seed's fields per epoch)")
      ->check(CLI::IsMember({"table", "json"}));
  bench_data_cmd->add_flag("--no-memcpy", a.bench_data.no_memcpy,
                           "do not copy each element as a host-to-device transfer");

  CLI::App* check_cmd = app.add_subcommand("check", "parse and check; print parameters and FLOPs per sample");
  add_common(check_cmd, a.check);

  CLI::App* plan_cmd =
      app.add_subcommand("plan", "where stages run, memory per IPU, the schedule and predicted throughput");
  add_common(plan_cmd, a.plan);
  plan_cmd->add_option("--format", a.plan.format, "text (for people), json (for tools) or dot (Graphviz)")
      ->check(CLI::IsMember({"text", "json", "dot"}));
  plan_cmd
      ->add_option("--dump-after", a.plan.dump_after,
                   "print the planner's state after this pass to stderr (repeatable)")
      ->type_name("PASS");
  plan_cmd->add_option("-o,--output", a.plan.output, "write the report to this file instead of stdout")
      ->type_name("FILE");
  plan_cmd->add_option("--gantt", a.plan.gantt, "also draw the schedule as an SVG Gantt chart into this file")
      ->type_name("FILE");
  plan_cmd->add_option("--memory-svg", a.plan.memory_svg, "also draw memory per IPU over time as SVG into this file")
      ->type_name("FILE");
  plan_cmd
      ->add_option("--html", a.plan.html,
                   "also write the plan as one self-contained HTML page (summary, memory, Gantt, cycles per op, "
                   "config) into this file")
      ->type_name("FILE");
  plan_cmd->add_flag("--inference", a.plan.inference, "the plan eval and predict run: the forward program only");
  plan_cmd->add_flag("--explain-passes", a.plan.explain_passes,
                     "print the planner's passes (what each reads and writes, what it is for) instead of a plan");

  CLI::App* repl_cmd = app.add_subcommand(
      "repl", "inspect the plan, change keys and re-plan, sweep, run steps (commands from stdin when not a terminal)");
  add_common(repl_cmd, a.repl);
  repl_cmd->add_flag("--echo", a.repl.echo,
                     "when reading a script: print each command as `> COMMAND` before its output");

  table.emplace_back(bench_data_cmd, [&a] { return iputrain::cli::run_bench_data(a.bench_data); });
  table.emplace_back(check_cmd, [&a] { return iputrain::cli::run_check(a.check); });
  table.emplace_back(plan_cmd, [&a] { return iputrain::cli::run_plan(a.plan); });
  table.emplace_back(repl_cmd, [&a] { return iputrain::cli::run_repl(a.repl); });
}

// `config show|explain|keys|docs`.
void add_config_commands(CLI::App& app, Args& a, CommandTable& table) {
  CLI::App* config_cmd = app.add_subcommand("config", "show, explain and document config keys");
  config_cmd->require_subcommand(1);
  CLI::App* show_cmd = config_cmd->add_subcommand("show", "print the effective config with defaults filled in");
  show_cmd->add_option("config", a.config_show.config, "config file (*.toml)")->required()->check(CLI::ExistingFile);
  show_cmd->add_option("--set", a.config_show.sets, "override a config key (repeatable)")->type_name("KEY=VALUE");
  CLI::App* explain_cmd = config_cmd->add_subcommand("explain", "type, default, allowed values and effect of a key");
  explain_cmd->add_option("key", a.explain_key, "key path, e.g. pipeline.schedule, or a table")->required();
  CLI::App* keys_cmd = config_cmd->add_subcommand("keys", "list every config key");
  CLI::App* docs_cmd = config_cmd->add_subcommand("docs", "print the key reference (docs/config.md)");

  table.emplace_back(show_cmd, [&a] { return iputrain::cli::run_config_show(a.config_show); });
  table.emplace_back(explain_cmd, [&a] { return iputrain::cli::run_config_explain(a.explain_key); });
  table.emplace_back(keys_cmd, [] { return iputrain::cli::run_config_keys(); });
  table.emplace_back(docs_cmd, [] { return iputrain::cli::run_config_docs(); });
}

//! Runs the parsed command; an error is printed (prefixed `who`) and mapped to an exit status.
int run_parsed(const CommandTable& commands, const iputrain::cli::CommandLine& line, const std::string& who) {
  try {
    for (const auto& [cmd, run] : commands) {
      if (cmd->parsed()) {
        iputrain::cli::check_file_roles(*cmd, line);
        iputrain::cli::check_output_names(*cmd, line);
        return run();
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

  Args args;
  CommandTable commands;
  add_run_commands(app, args, commands);
  add_inspect_commands(app, args, commands);
  add_config_commands(app, args, commands);
  iputrain::cli::add_tune_command(app, commands);
  iputrain::cli::add_verify_command(app, commands);

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
