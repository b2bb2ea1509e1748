// `iputrain tune MODEL CONFIG`: searches the layouts (iputrain/tune.hpp), prints the best ones and
// writes the best as a config file that `iputrain plan` predicts the same figures for.
#include "cli/tune_command.hpp"

#include <CLI/CLI.hpp>

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "iputrain/files.hpp"
#include "iputrain/plan.hpp"

namespace iputrain::cli {

namespace {

struct TuneArgs {
  std::string model;
  std::string config;
  std::vector<std::string> sets;
  int64_t ipus = 0;
  int64_t global_batch = 0;
  double tolerance = -1;  // the flags' "not given": the config's [tune] keys then
  double time = 0;
  int64_t plans = 0;
  int32_t top = 0;
  std::string output;
  std::string format = "text";
  bool vary_layout = false;
  bool keep_layout = false;
};

std::string differs(const TunedPlan& t) {
  return t.changes.empty() ? "(nothing)" : fmt::format("{}", fmt::join(t.changes, " "));
}

nlohmann::ordered_json plan_json(const TunedPlan& t) {
  nlohmann::ordered_json j;
  j["samples_per_second"] = t.samples_per_second;
  j["peak_bytes"] = t.peak_bytes;
  j["capacity_bytes"] = t.capacity;
  j["bubble_fraction"] = t.bubble_fraction;
  j["replicas"] = t.replicas;
  j["ipus_per_replica"] = t.ipus_per_replica;
  j["micro_batch"] = t.micro_batch;
  j["accumulation"] = t.accumulation;
  j["global_batch"] = t.global_batch;
  j["schedule"] = t.schedule;
  j["summary"] = t.summary;
  j["changes"] = t.changes;
  j["pareto"] = t.pareto;
  return j;
}

int run_tune(const TuneArgs& args) {
  TuneRequest request;
  request.model_path = args.model;
  request.config_path = args.config;
  request.sets = args.sets;
  request.ipus = args.ipus;
  request.global_batch = args.global_batch;
  request.batch_tolerance = args.tolerance;
  request.time_seconds = args.time;
  request.plans = args.plans;
  request.top = args.top;
  request.vary_layout = args.vary_layout;
  request.keep_layout = args.keep_layout;
  // The progress line goes to stderr, and only to a terminal: stdout stays the report.
  if (!args.output.empty()) {
    prepare_output(args.output, "-o");  // before the search, which may take minutes
  }
  const bool terminal = isatty(STDERR_FILENO) == 1;
  if (terminal) {
    request.progress = [](const TuneProgress& p) {
      fmt::print(stderr, "\r\033[K[{:5.1f}/{:.0f} s] {} planned, {} pruned; best {}", p.seconds, p.budget_seconds,
                 p.planned, p.pruned,
                 p.best.empty() ? std::string("none fits yet")
                                : fmt::format("{:.0f} samples/s: {}", p.best_samples_per_second, p.best));
    };
  }
  const TuneResult result = tune(request);
  if (terminal) {
    fmt::print(stderr, "\r\033[K");
  }
  const auto shown = static_cast<int32_t>(result.ranked.size());
  std::fputs((args.format == "json" ? tune_json(result) : tune_text(result, shown)).c_str(), stdout);
  if (!args.output.empty()) {
    write_file_atomically(args.output, result.ranked.front().toml);
    fmt::print(stderr, "wrote the best plan's config to {}\n", args.output);
  }
  return 0;
}

}  // namespace

std::string tune_text(const TuneResult& result, int32_t top) {
  std::string out = fmt::format(
      "{} candidates hold a global batch of {}: {} planned ({} did not place), {} pruned by memory bounds, {} not "
      "tried{}; {:.1f} s of a {:g} s budget{}{}{}\n",
      result.space, result.global_batch, result.planned - result.variants, result.failed, result.pruned, result.untried,
      result.variants > 0
          ? fmt::format("; {} more plans of the best with per-stage memory proportions", result.variants)
          : "",
      result.seconds, result.budget_seconds, result.exhaustive ? " (every candidate)" : "",
      result.timed_out ? " (time budget reached; best found so far)" : "",
      result.plans_spent ? " (plan budget reached; best found so far)" : "");
  if (result.own_global_batch > 0) {
    out += fmt::format(
        "the global batch is the input config's on these IPUs: {} IPUs for its {} and {} samples per update for "
        "its {}; --global-batch {} keeps its own\n",
        result.input.replicas * result.input.ipus_per_replica, result.own_ipus, result.global_batch,
        result.own_global_batch, result.own_global_batch);
  }
  if (result.input_fits) {
    out += fmt::format("input config: {:.0f} samples/s, peak {} per IPU, bubble {:.1f}%: {}\n",
                       result.input.samples_per_second, format_bytes(result.input.peak_bytes),
                       100 * result.input.bubble_fraction, result.input.summary);
  } else {
    out += "input config: does not plan on these IPUs\n";
  }
  out += fmt::format("\ntop {} (of {} shown):\n", std::min<size_t>(result.ranked.size(), static_cast<size_t>(top)),
                     result.ranked.size());
  out += fmt::format("{:>4}  {:>11}  {:>10}  {:>6}  {}\n", "rank", "samples/s", "peak/IPU", "bubble", "plan");
  for (size_t k = 0; k < result.ranked.size(); ++k) {
    const TunedPlan& t = result.ranked[k];
    out += fmt::format("{:>4}  {:>11.0f}  {:>10}  {:>5.1f}%  {}{}\n", k + 1, t.samples_per_second,
                       format_bytes(t.peak_bytes), 100 * t.bubble_fraction, t.summary, t.pareto ? " *" : "");
    out += fmt::format("{:>4}  differs: {}\n", "", differs(t));
  }
  out += "\nPareto front, throughput against memory headroom (* above):\n";
  out += fmt::format("  {:>11}  {:>10}  {}\n", "samples/s", "headroom", "plan");
  for (const TunedPlan& t : result.pareto) {
    out += fmt::format("  {:>11.0f}  {:>10}  {}\n", t.samples_per_second, format_bytes(t.capacity - t.peak_bytes),
                       t.summary);
  }
  return out;
}

std::string tune_json(const TuneResult& result) {
  nlohmann::ordered_json j;
  j["global_batch"] = result.global_batch;
  if (result.own_global_batch > 0) {
    j["own_ipus"] = result.own_ipus;
    j["own_global_batch"] = result.own_global_batch;
  }
  j["space"] = result.space;
  j["planned"] = result.planned;
  j["failed"] = result.failed;
  j["pruned"] = result.pruned;
  j["untried"] = result.untried;
  j["variants"] = result.variants;
  j["seconds"] = result.seconds;
  j["budget_seconds"] = result.budget_seconds;
  j["timed_out"] = result.timed_out;
  j["plans_spent"] = result.plans_spent;
  j["exhaustive"] = result.exhaustive;
  j["input"] = result.input_fits ? plan_json(result.input) : nlohmann::ordered_json();
  j["ranked"] = nlohmann::ordered_json::array();
  for (const TunedPlan& t : result.ranked) {
    j["ranked"].push_back(plan_json(t));
  }
  j["pareto"] = nlohmann::ordered_json::array();
  for (const TunedPlan& t : result.pareto) {
    j["pareto"].push_back(plan_json(t));
  }
  return j.dump(2) + "\n";
}

namespace {

Runner add_tune(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* cmd = &app;
  cmd->add_option("model", a->model, "model file (*.ipu)")->required()->check(CLI::ExistingFile);
  cmd->add_option("config", a->config, "config file (*.toml); the keys it sets are kept")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--set", a->sets, "override a config key (repeatable); it is kept fixed")->type_name("KEY=VALUE");
  cmd->add_option("--ipus", a->ipus, "IPUs in all (default: [tune] ipus, else the config's)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--global-batch", a->global_batch,
                  "samples per weight update to hold (default: [tune] global_batch, else the input plan's)")
      ->type_name("B")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--batch-tolerance", a->tolerance,
                  "relative distance from the global batch allowed (default: [tune] batch_tolerance, 0)")
      ->type_name("FRACTION")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--time", a->time,
                  "search budget; the best plan so far is kept when it runs out (default: [tune] time, 60)")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--plans", a->plans,
                  "candidates planned at most: the search stops at the same candidate on any machine (default: [tune] "
                  "plans, 0 = only the time limits)")
      ->type_name("N")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--top", a->top, "plans listed (default: [tune] top, 5)")->type_name("K")->check(CLI::PositiveNumber);
  cmd->add_option("-o,--output", a->output, "write the best plan's config (TOML) to this file")->type_name("FILE");
  cmd->add_option("--format", a->format, "text (for people) or json (for tools)")
      ->check(CLI::IsMember({"text", "json"}));
  CLI::Option* vary = cmd->add_flag("--vary-layout", a->vary_layout,
                                    "also search the layout keys the config sets (stages, mapping, batch, schedule, "
                                    "memory knobs); default: [tune] vary_layout. The flags override the config's "
                                    "[tune] keys");
  cmd->add_flag("--keep-layout", a->keep_layout,
                "keep the layout keys the config sets although its [tune] says vary_layout = true")
      ->excludes(vary);
  return [a](const CommandLine&) { return run_tune(*a); };
}

}  // namespace

const CommandDef kTuneCommand{"tune",
                              "search the fastest layout that fits: stages, replicas, batch, schedule, recomputation, "
                              "memory; write it as a config",
                              add_tune};

}  // namespace iputrain::cli
