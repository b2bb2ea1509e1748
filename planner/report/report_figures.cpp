// The figures every report format shares: per-stage summaries, the stage graph's edges, byte
// formatting.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "planner/cost_model.hpp"
#include "planner/report/report.hpp"

namespace iputrain::planner {

const std::vector<ir::ValueId>& micro_batch_program(const Plan& plan) {
  return plan.decided.training && !plan.train_program.empty() ? plan.train_program : plan.eval_program;
}

std::vector<StageSummary> stage_summaries(const Plan& plan) {
  const ir::Graph& g = plan.graph;
  const Pipeline& p = plan.placement.pipeline;
  std::vector<StageSummary> out(g.stages.size());
  for (size_t s = 0; s < out.size(); ++s) {
    out[s].stage = static_cast<int32_t>(s);
    out[s].name = g.stages[s].name;
    out[s].ipu = s < p.stage_ipu.size() ? p.stage_ipu[s] : 0;
    for (const auto& replica : plan.placement.physical) {
      const auto ipu = static_cast<size_t>(out[s].ipu);
      if (ipu < replica.size()) {
        out[s].physical_ids.push_back(replica[ipu]);
      }
    }
  }
  for (size_t pos = 0; pos < p.positions.size(); ++pos) {
    for (int32_t s : p.positions[pos]) {
      out.at(static_cast<size_t>(s)).position = static_cast<int32_t>(pos);
    }
  }
  for (ir::ValueId id : g.params) {
    const ir::Node& n = g.node(id);
    StageSummary& s = out.at(static_cast<size_t>(n.stage));
    s.params += n.type.numel();
    s.param_bytes += static_cast<int64_t>(n.type.bytes());
  }
  const auto& program = micro_batch_program(plan);
  for (StageSummary& s : out) {
    s.forward_cycles = stage_cycles(g, program, s.stage, ir::Phase::Forward, plan.decided.device);
    if (plan.decided.training) {
      s.backward_cycles = stage_cycles(g, program, s.stage, ir::Phase::Backward, plan.decided.device);
    }
  }
  return out;
}

std::vector<StageEdge> stage_edges(const Plan& plan) {
  const ir::Graph& g = plan.graph;
  // A value read by several nodes of one other stage crosses to it once.
  std::set<std::pair<ir::ValueId, int32_t>> crossings;
  for (ir::ValueId id : micro_batch_program(plan)) {
    const ir::Node& user = g.node(id);
    for (ir::ValueId in : user.inputs) {
      const ir::Node& producer = g.node(in);
      const bool leaf = ir::is_leaf(producer);
      if (!leaf && producer.stage != user.stage) {
        crossings.insert({in, user.stage});
      }
    }
  }
  std::map<std::tuple<bool, int32_t, int32_t>, int64_t> bytes;
  for (const auto& [value, to] : crossings) {
    const ir::Node& producer = g.node(value);
    bytes[{producer.phase == ir::Phase::Backward, producer.stage, to}] += static_cast<int64_t>(producer.type.bytes());
  }
  std::vector<StageEdge> out;
  for (const auto& [key, b] : bytes) {
    out.push_back({std::get<1>(key), std::get<2>(key), std::get<0>(key), b});
  }
  return out;
}

std::string human_bytes(int64_t bytes) {
  const double b = static_cast<double>(bytes);
  const double abs = std::abs(b);
  if (abs < 1024.0) {
    return fmt::format("{} B", bytes);
  }
  if (abs < 1024.0 * 1024.0) {
    return fmt::format("{:.1f} KiB", b / 1024.0);
  }
  if (abs < 1024.0 * 1024.0 * 1024.0) {
    return fmt::format("{:.1f} MiB", b / (1024.0 * 1024.0));
  }
  return fmt::format("{:.2f} GiB", b / (1024.0 * 1024.0 * 1024.0));
}

std::string usage_bar(int64_t used, int64_t capacity, int width) {
  const double share = capacity > 0 ? static_cast<double>(used) / static_cast<double>(capacity) : 1.0;
  // Round up so that any use shows at least one mark; an empty IPU shows none.
  int filled = used > 0 ? static_cast<int>(std::ceil(std::min(share, 1.0) * width)) : 0;
  filled = std::clamp(filled, 0, width);
  std::string bar =
      "[" + std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(width - filled), '.') + "]";
  if (used > capacity) {
    bar[static_cast<size_t>(width)] = '!';
  }
  return bar;
}

}  // namespace iputrain::planner
