// The stage graph for Graphviz: `iputrain plan … --format dot | dot -Tsvg > plan.svg`.
#include <fmt/format.h>

#include "planner/report/report.hpp"

namespace iputrain::planner {

namespace {

// A DOT double-quoted string; line breaks become DOT's centred `\n`.
std::string dot_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') {
      out += '\\';
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string plan_dot(const Plan& plan, std::string_view model) {
  const std::vector<StageSummary> stages = stage_summaries(plan);
  const Placement& pl = plan.placement;
  std::string out = fmt::format("digraph {} {{\n", dot_quoted(model));
  out += "  rankdir=LR;\n  node [shape=box, style=rounded];\n";
  out += fmt::format("  label={};\n",
                     dot_quoted(fmt::format("{}: {} x {} IPUs, {} schedule, accumulation {}", model, pl.replicas,
                                            pl.pipeline.ipus_per_replica, schedule_name(plan.decided.schedule),
                                            plan.decided.accumulation_count)));
  for (int32_t ipu = 0; ipu < pl.pipeline.ipus_per_replica; ++ipu) {
    const auto idx = static_cast<size_t>(ipu);
    std::string label = fmt::format("IPU {}", ipu);
    std::vector<int32_t> physical;
    for (const auto& replica : pl.physical) {
      if (idx < replica.size()) {
        physical.push_back(replica[idx]);
      }
    }
    if (!physical.empty()) {
      label += fmt::format(" (physical {})", fmt::join(physical, ", "));
    }
    if (idx < plan.memory.size()) {
      label += fmt::format("\npeak {} of {}", human_bytes(plan.memory[idx].total_peak),
                           human_bytes(plan.memory[idx].capacity));
    }
    out += fmt::format("  subgraph cluster_ipu{} {{\n    label={};\n", ipu, dot_quoted(label));
    for (const StageSummary& s : stages) {
      if (s.ipu == ipu) {
        out += fmt::format(
            "    stage{} [label={}];\n", s.stage,
            dot_quoted(fmt::format("{}\nIPU {}\n{} of parameters", s.name, s.ipu, human_bytes(s.param_bytes))));
      }
    }
    out += "  }\n";
  }
  for (const StageEdge& e : stage_edges(plan)) {
    out += fmt::format("  stage{} -> stage{} [label={}{}];\n", e.from, e.to, dot_quoted(human_bytes(e.bytes)),
                       e.gradient ? ", style=dashed" : "");
  }
  return out + "}\n";
}

}  // namespace iputrain::planner
