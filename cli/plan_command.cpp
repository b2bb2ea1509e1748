// `iputrain plan MODEL CONFIG`: the plan as text, JSON or DOT, before anything runs.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/commands.hpp"
#include "iputrain/files.hpp"
#include "iputrain/iputrain.hpp"

namespace iputrain::cli {

namespace {

struct PlanArgs : CommonArgs {
  std::string format = "text";          //!< text | json | dot
  std::vector<std::string> dump_after;  //!< planner pass names
  std::string output;                   //!< "" = standard output
  std::string gantt;                    //!< write the schedule as SVG here ("" = no)
  std::string memory_svg;               //!< write memory per IPU over time as SVG here ("" = no)
  std::string html;                     //!< write the plan as one HTML page here ("" = no)
  bool inference = false;               //!< the plan eval and predict run (forward only)
  bool explain_passes = false;          //!< print the planner's pass table instead of a plan
};

// The planner's pass table: a row per pass, in the order they run.
std::string passes_text() {
  const std::vector<PassDescription> passes = Plan::passes();
  size_t name = 4, reads = 5, writes = 6;
  for (const PassDescription& p : passes) {
    name = std::max(name, p.name.size());
    reads = std::max(reads, p.reads.size());
    writes = std::max(writes, p.writes.size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "pass", name, "reads", reads, "writes", writes, "purpose");
  for (const PassDescription& p : passes) {
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", p.name, name, p.reads, reads, p.writes, writes, p.purpose);
  }
  return out;
}

int run_plan(const PlanArgs& args) {
  if (args.explain_passes) {
    std::fputs(passes_text().c_str(), stdout);
    return 0;
  }
  const auto [config, model, run] = load(args);
  for (const auto& [flag, path] : {std::pair{"-o", &args.output},
                                   {"--gantt", &args.gantt},
                                   {"--memory-svg", &args.memory_svg},
                                   {"--html", &args.html}}) {
    if (!path->empty()) {
      prepare_output(*path, flag);
    }
  }
  const Plan plan = Plan::make(model, run, PlanRequest{args.dump_after, args.inference});
  // Dumps go to stderr so that stdout stays one well-formed JSON or DOT document.
  std::fputs(plan.dumps().c_str(), stderr);
  // The pictures first: a run that asked for them and for a report to stdout gets both.
  for (const auto& [path, svg] : {std::pair{args.gantt, &Plan::gantt_svg}, std::pair{args.memory_svg, &Plan::memory_svg}}) {
    if (!path.empty()) {
      write_file_atomically(path, (plan.*svg)());
      std::fprintf(stderr, "wrote %s\n", path.c_str());
    }
  }
  if (!args.html.empty()) {
    write_file_atomically(args.html, plan.html(config));
    std::fprintf(stderr, "wrote %s\n", args.html.c_str());
  }
  const std::string report = args.format == "json"  ? plan.json()
                             : args.format == "dot" ? plan.dot()
                                                    : plan.text();
  if (args.output.empty()) {
    std::fputs(report.c_str(), stdout);
    return 0;
  }
  write_file_atomically(args.output, report);
  fmt::print("wrote the plan ({}) to {}\n", args.format, args.output);
  return 0;
}

Runner add_plan(CLI::App& cmd) {
  auto a = std::make_shared<PlanArgs>();
  add_common(cmd, *a);
  cmd.add_option("--format", a->format, "text (for people), json (for tools) or dot (Graphviz)")
      ->check(CLI::IsMember({"text", "json", "dot"}));
  cmd.add_option("--dump-after", a->dump_after, "print the planner's state after this pass to stderr (repeatable)")
      ->type_name("PASS");
  cmd.add_option("-o,--output", a->output, "write the report to this file instead of stdout")->type_name("FILE");
  cmd.add_option("--gantt", a->gantt, "also draw the schedule as an SVG Gantt chart into this file")->type_name("FILE");
  cmd.add_option("--memory-svg", a->memory_svg, "also draw memory per IPU over time as SVG into this file")
      ->type_name("FILE");
  cmd.add_option("--html", a->html,
                 "also write the plan as one self-contained HTML page (summary, memory, Gantt, cycles per op, "
                 "config) into this file")
      ->type_name("FILE");
  cmd.add_flag("--inference", a->inference, "the plan eval and predict run: the forward program only");
  cmd.add_flag("--explain-passes", a->explain_passes,
               "print the planner's passes (what each reads and writes, what it is for) instead of a plan");
  return [a](const CommandLine&) { return run_plan(*a); };
}

}  // namespace

const CommandDef kPlanCommand{"plan", "where stages run, memory per IPU, the schedule and predicted throughput",
                              add_plan};

}  // namespace iputrain::cli
