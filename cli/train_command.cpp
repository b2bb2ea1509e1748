// `iputrain train MODEL CONFIG`: trains, logging what the outfeed holds, then evaluates on the
// test split; --resume continues from a checkpoint, --save writes the weights.
#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/outfeed_file.hpp"
#include "cli/progress.hpp"
#include "cli/run_report.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

struct TrainArgs : CommonArgs {
  std::string init_from;
  std::string save;
  bool quiet = false;
  bool no_eval = false;             //!< skip the evaluation on data.test after training
  std::string trace;                //!< Chrome trace JSON of the run ("" = none)
  std::string outfeed;              //!< what the outfeed held, per step: FILE.csv or FILE.npy ("" = none)
  std::string resume;               //!< checkpoint directory or file to continue from ("" = a new run)
  bool no_checkpoint = false;       //!< write no checkpoint, whatever checkpoint.* says
  bool overwrite = false;           //!< a new run may clear a checkpoint directory another run used
  bool verbose = false;             //!< the run report's every bubble figure
  std::string log_format = "text";  //!< text | json (one JSON object per line)
};

// The evaluation on data.test after training: a line, or a JSON object.
void print_test(Session& session, bool json) {
  const EvalResult r = session.evaluate("test");
  const std::vector<std::string> order = output_order(session, r);
  if (!json) {
    fmt::print("test:{}\n", eval_str(r, order));
    return;
  }
  std::vector<double> values;
  for (const std::string& name : order) {
    values.push_back(r.means.at(name));
  }
  nlohmann::ordered_json j{
      {"event", "test"}, {"samples", r.samples}, {"last_batch", r.last_batch}, {"skipped", r.skipped}};
  j["metrics"] = metrics_json(order, values);
  fmt::print("{}\n", j.dump());
}

// What the log's last lines say of a train() call, in text or as one JSON object.
struct TrainEnd {
  const TrainSummary& summary;
  const std::vector<std::string>& names;       // the step lines' values
  const WindowMeans& window;                   // the log's last window: its means are the summary's
  const std::vector<double>& last_values;      // the last step's alone (one batch): --verbose
  const std::vector<std::string>& validation;  // val_ names ({} without validation)
  double epoch = 0;
  int64_t step = 0;
  bool verbose = false;
};

// "mean of steps 1689-1875" (or "of step 40"): what the summary's values are.
std::string window_text(const WindowMeans& w) {
  return w.first_step() == w.last_step() ? fmt::format("mean of step {}", w.last_step())
                                         : fmt::format("mean of steps {}-{}", w.first_step(), w.last_step());
}

// Wall time = training (device executions) + validation + the rest (checkpoints, host work), so
// the figures add up; the rate is over the training time alone, as on the step lines.
std::string summary_text(const TrainEnd& e) {
  const TrainSummary& s = e.summary;
  const double other = std::max(0.0, s.seconds - s.train_seconds - s.validation_seconds);
  std::string out = fmt::format(
      "trained {} steps ({} samples) to epoch {:.2f} in {:.2f} s: {:.2f} s training at {:.0f} samples/s ({:.0f} after "
      "the first execution), {:.2f} s validation, {:.2f} s checkpoints and host\n",
      s.steps, s.samples, e.epoch, s.seconds, s.train_seconds, s.samples_per_second, s.steady_samples_per_second,
      s.validation_seconds, other);
  out += fmt::format("{}:{}  lr {}", window_text(e.window), metrics_text(e.names, e.window.means()),
                     learning_rate_text(s.learning_rate));
  if (!s.validations.empty() && !e.validation.empty()) {
    out += metrics_text(e.validation, s.validations.back().values);
  }
  out += "\n";
  if (e.verbose && !e.last_values.empty()) {
    out += fmt::format("last batch alone (step {}):{}\n", e.step, metrics_text(e.names, e.last_values));
  }
  return out;
}

nlohmann::ordered_json summary_json(const TrainEnd& e, const RunReport& report) {
  const TrainSummary& s = e.summary;
  nlohmann::ordered_json j;
  j["event"] = "summary";
  j["steps"] = s.steps;
  j["samples"] = s.samples;
  j["epoch"] = e.epoch;
  j["seconds"] = s.seconds;
  j["train_seconds"] = s.train_seconds;
  j["validation_seconds"] = s.validation_seconds;
  j["samples_per_second"] = s.samples_per_second;
  j["steady_samples_per_second"] = s.steady_samples_per_second;
  j["step"] = e.step;
  j["metrics"] = metrics_json(e.names, e.window.means());
  j["metrics_steps"] = {e.window.first_step(), e.window.last_step()};
  j["last_batch_metrics"] = metrics_json(e.names, e.last_values);
  j["learning_rate"] = learning_rate_value(s.learning_rate);
  j["validation"] = !s.validations.empty() ? metrics_json(e.validation, s.validations.back().values)
                                           : nlohmann::ordered_json::object();
  j["bubble"] = report.measured_bubble;
  j["executions"] = report.executions;
  j["large_only_executions"] = report.large_only_executions;
  j["simulated_seconds"] = report.simulated_seconds;
  j["stopped"] = s.stopped;
  j["checkpoints"] = s.checkpoints;
  return j;
}

// --init-from or --resume: where the run starts. False when a resumed run has nothing left to do.
bool start_point(Session& session, const TrainArgs& args, std::FILE* notes) {
  if (!args.init_from.empty()) {
    if (!args.resume.empty()) {
      throw Error(ErrorKind::Usage, "--init-from and --resume both give the starting point", {},
                  "--resume continues a run from its checkpoint; --init-from starts a new run from weights");
    }
    for (const std::string& w : session.load_weights(args.init_from)) {
      fmt::print(stderr, "warning: {}\n", w);
    }
  }
  if (args.resume.empty()) {
    return true;
  }
  const ResumeInfo r = session.resume(args.resume);
  for (const std::string& note : r.notes) {
    fmt::print(stderr, "note: {}\n", note);
  }
  fmt::print(notes, "resuming from {} at step {}: {} steps to go\n", r.path, r.step, r.remaining);
  if (r.remaining == 0) {
    fmt::print(notes,
               "nothing to do: the checkpoint is at step {}, the run's total is {}; raise training.steps (or "
               "epochs) to train further\n",
               r.step, session.planned_steps());
    return false;
  }
  return true;
}

// The run's first line: what trains where, for how long.
void print_intro(const Session& session, const Loaded& loaded, const Instances& instances, std::FILE* notes) {
  const Config& config = loaded.config;
  const Model& model = loaded.model;
  const size_t ipus = session.memory_per_ipu().size();
  fmt::print(notes, "training {}{} on {} virtual IPU{}: {} parameters, {} steps of batch {} (micro-batch {})\n",
             model.name(),
             config.is_set("pipeline.name") ? fmt::format(" (pipeline \"{}\")", config.plain.pipeline_name) : "", ipus,
             ipus == 1 ? "" : "s", model.parameter_count(), session.planned_steps(), session.global_batch(),
             model.batch_size());
  if (instances.count > 1) {
    fmt::print(notes,
               "{} instances (mpirun -n {}) share the replicas; this log is instance 0's, with every instance's "
               "figures\n",
               instances.count, instances.count);
  }
}

// The notes after training: the outfeed, loss scale, report, trace, profile and checkpoints.
void print_run_notes(Session& session, const TrainArgs& args, const Loaded& loaded, const Settings& settings,
                     const TrainSummary& summary, std::FILE* notes) {
  if (settings.plain.optimizer_loss_scaling_mode == LossScaling::Dynamic || summary.skipped_updates > 0) {
    fmt::print(notes, "loss scale {:g}; {} update{} skipped since step 0 because a gradient overflowed\n",
               summary.loss_scale, summary.skipped_updates, summary.skipped_updates == 1 ? "" : "s");
  }
  if (!args.quiet) {
    fmt::print(notes, "{}", run_report_text(session.run_report(), args.verbose));
  }
  if (!args.trace.empty()) {
    session.write_trace(args.trace);
    fmt::print(notes, "wrote the trace to {} (open it in https://ui.perfetto.dev)\n", args.trace);
  }
  if (!summary.profile_directory.empty()) {
    fmt::print(notes, "wrote the profile to {}\n", summary.profile_directory);
  }
  if (!summary.best_checkpoint.empty()) {
    fmt::print(notes, "kept the best checkpoint ({} {:.4f}) as {}\n", loaded.config.plain.checkpoint_keep_best,
               summary.best_value, summary.best_checkpoint);
  }
  if (!summary.checkpoints.empty()) {
    fmt::print(notes, "wrote {} checkpoint{}, the last {}\n", summary.checkpoints.size(),
               summary.checkpoints.size() == 1 ? "" : "s", summary.checkpoints.back());
  }
}

// --save at the end of a run: a write that still fails (the disk filled up during the run) puts
// the weights in a recovery file in the current folder, and the error says where.
void save_or_recover(Session& session, const std::string& path, std::FILE* notes) {
  try {
    session.save_weights(path);
  } catch (const Error& e) {
    const std::string recovery = fmt::format("iputrain-recovered-{}.safetensors", ::getpid());
    try {
      session.save_weights(recovery);
    } catch (const Error&) {
      throw Error(ErrorKind::Io,
                  fmt::format("{}; writing them to `{}` in the current folder failed too", e.what(), recovery), {},
                  "free space or choose a writable --save path; the weights of this run are lost");
    }
    throw Error(ErrorKind::Io, fmt::format("{}; the trained weights are in `{}` instead", e.what(), recovery), {},
                fmt::format("move `{}` where you wanted it", recovery));
  }
  fmt::print(notes, "saved weights to {}\n", path);
}

// A run stopped by a signal: where it stopped and how to go on; the exit status.
int interrupted(const Session& session, const TrainArgs& args, const TrainSummary& summary, int sig,
                const Instances& instances) {
  if (instances.index > 0) {
    return 128 + sig;  // instance 0 says where the run stopped
  }
  // The checkpoint (if any) is the run's state; --save and the test evaluation are for finished runs.
  if (summary.checkpoints.empty()) {
    fmt::print(stderr, "stopped by {} at step {}: no checkpoint.dir is set, so nothing was saved{}\n", signal_name(sig),
               session.step(), args.save.empty() ? "" : " (--save is for finished runs)");
  } else {
    fmt::print(stderr, "stopped by {} at step {}: resume with --resume {}{}\n", signal_name(sig), session.step(),
               summary.checkpoints.back(), args.save.empty() ? "" : " (--save is for finished runs)");
  }
  return 128 + sig;
}

int run_train(const TrainArgs& args) {
  TrainArgs with = args;
  if (args.no_checkpoint) {
    with.sets.emplace_back("checkpoint.dir=");  // an empty dir switches every checkpoint key off
  }
  const Loaded loaded = load(with);
  const Settings& settings = loaded.run.settings();
  // The files the run ends by writing are checked (their folders made) before its first step.
  const bool writes = current_instances().index == 0;
  for (const auto& [flag, path] :
       {std::pair{"--save", &args.save}, {"--trace", &args.trace}, {"--outfeed", &args.outfeed}}) {
    if (!path->empty() && writes) {
      prepare_output(*path, flag);
    }
  }
  if (!settings.plain.checkpoint_dir.empty() && writes) {
    prepare_output(settings.plain.checkpoint_dir, "checkpoint.dir", true);
  }
  if (settings.plain.profiling_enabled && !settings.plain.profiling_report_directory.empty() && writes) {
    prepare_output(settings.plain.profiling_report_directory, "profiling.report_directory", true);
  }
  Session session(loaded.model, loaded.run);
  session.overwrite_checkpoints(args.overwrite);
  // JSON lines on stdout are the log for tools; every other word goes to stderr.
  const bool json = args.log_format == "json";
  std::FILE* const notes = json ? stderr : stdout;
  if (!start_point(session, args, notes)) {
    return 0;
  }
  // The log and --outfeed show what the outfeed holds (training.outfeed_mode, outfeed_loss,
  // outfeed_mask, accumulate_outfeed), dequeued after every execution.
  // Several instances (mpirun): the first logs and writes the files, with every instance's figures.
  const Instances instances = current_instances();
  OutfeedFile outfeed(instances.index == 0 ? args.outfeed : std::string(), session.outfeed_layout());
  const std::vector<std::string> names = outfeed.layout().names;
  if (!args.quiet) {
    print_intro(session, loaded, instances, notes);
  }
  session.record_trace(!args.trace.empty());
  // Under mpirun stdout is a pseudo-terminal of Open MPI's, relayed to wherever mpirun's own output
  // goes (often a file), and no longer drained once mpirun is told to stop: plain log lines, not
  // a redrawn bar that would fill it and block the stop.
  const bool terminal = isatty(STDOUT_FILENO) == 1 && instances.count == 1;
  ProgressPrinter printer(names, session.planned_steps(), loaded.config.plain.training_log_every, !args.quiet, terminal,
                          outfeed.layout().last_only);
  printer.set_first_step(session.step());
  printer.set_format(json ? LogFormat::Json : LogFormat::Text);
  const bool validating = settings.validation.enabled;
  if (validating) {
    printer.set_validation_names(session.validation_names());
  }
  std::vector<double> last_values;
  double last_epoch = 0;
  const InterruptGuard interrupt(session, instances.index > 0);
  TrainSummary summary = session.train([&](const Progress& p) {
    interrupt.reapply();
    for (const ValidationRecord& v : p.validations) {
      outfeed.add_validation(v, session.validation_names());
    }
    Progress held = p;
    held.records = outfeed.add(session.dequeue_outfeed(), p.records);
    last_epoch = p.epoch;
    if (!held.records.empty()) {
      last_values = held.records.back().values;
    }
    printer.update(held);
  });
  printer.finish();
  const std::vector<std::string> validation_names =
      validating ? session.validation_names() : std::vector<std::string>{};
  const TrainEnd end{summary,          names,      printer.window(), last_values,
                     validation_names, last_epoch, session.step(),   args.verbose};
  const RunReport report = session.run_report();
  fmt::print("{}", json ? summary_json(end, report).dump() + "\n" : summary_text(end));
  if (const std::string written = outfeed.finish(); !written.empty()) {
    fmt::print(notes, "wrote the outfeed to {}\n", written);
  }
  print_run_notes(session, args, loaded, settings, summary, notes);
  if (const int sig = interrupt.received(); sig != 0 && summary.stopped) {
    return interrupted(session, args, summary, sig, instances);
  }
  if (!args.save.empty()) {
    save_or_recover(session, args.save, notes);
  }
  if (!args.no_eval && !loaded.config.plain.data_test.empty()) {
    print_test(session, json);
  }
  return 0;
}

Runner add_train(CLI::App& cmd) {
  auto a = std::make_shared<TrainArgs>();
  add_common(cmd, *a);
  cmd.add_option("--init-from", a->init_from, "start from these weights (safetensors, or a checkpoint's)")
      ->check(CLI::ExistingPath)
      ->type_name("FILE");
  cmd.add_option("--save", a->save, "write the trained weights here (safetensors)")->type_name("FILE");
  cmd.add_flag("-q,--quiet", a->quiet, "print only the summary");
  cmd.add_flag("--no-eval", a->no_eval, "do not evaluate on data.test after training");
  cmd.add_flag("-v,--verbose", a->verbose,
               "the run report in full: the bubble measured, simulated, planned and analytic");
  cmd.add_option("--log-format", a->log_format,
                 "text (for people) or json (one JSON object per line: steps, validations, summary, test)")
      ->check(CLI::IsMember({"text", "json"}));
  cmd.add_option("--trace", a->trace, "write a Chrome trace (Perfetto) of the run: one track per virtual IPU")
      ->type_name("FILE");
  cmd.add_option("--outfeed", a->outfeed,
                 "write what the outfeed held, per step, to FILE.csv or FILE.npy (one .npy per value)")
      ->type_name("FILE");
  cmd.add_option("--resume", a->resume,
                 "continue from a checkpoint: a checkpoint.dir (its newest) or one step-*.safetensors file")
      ->type_name("DIR|FILE");
  cmd.add_flag("--no-checkpoint", a->no_checkpoint, "write no checkpoint, whatever the config's [checkpoint] says");
  cmd.add_flag("--overwrite", a->overwrite,
               "let a new run use a checkpoint directory that holds another run's checkpoints (deletes them)");
  return [a](const CommandLine&) { return run_train(*a); };
}

}  // namespace

const CommandDef kTrainCommand{"train", "train a model; logs the outfeed, then evaluates on the test split", add_train};

}  // namespace iputrain::cli
