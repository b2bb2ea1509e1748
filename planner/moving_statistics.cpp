#include "planner/moving_statistics.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "iputrain/error.hpp"
#include "planner/memory_model.hpp"
#include "planner/plan.hpp"

namespace iputrain::planner {

std::vector<MovingStatistic> moving_statistics(const ir::Graph& g, const std::vector<ir::ValueId>& program) {
  std::vector<MovingStatistic> out;
  for (ir::ValueId id : program) {
    const ir::Node& n = g.node(id);
    if (!op_has(n.op, ir::op_flags::state_update)) {
      continue;
    }
    const ir::ValueId state = n.inputs[1];
    const ir::Node& s = g.node(state);
    if (!ir::is_weight(s) || ir::trainable(s)) {
      throw Error(ErrorKind::Plan, "the state of a moving average must be a non-trainable parameter", n.span,
                  "declare it with `param NAME: f32[...] = zeros(), trainable = false`");
    }
    if (std::any_of(out.begin(), out.end(), [&](const MovingStatistic& m) { return m.state == state; })) {
      throw Error(ErrorKind::Plan, fmt::format("parameter '{}' follows two moving averages", s.name), n.span,
                  "give each statistic its own state");
    }
    out.push_back({state, id, n.attrs.get_float("momentum")});
  }
  return out;
}

int32_t statistic_buffers(const Plan& plan) {
  if (!plan.decided.training) {
    return 0;
  }
  // One micro-batch on one replica still needs a buffer: its statistic is read at the update,
  // long after the arena has reused its memory.
  return std::max(1, accumulator_buffers(plan, GradientAccumulationOrder::Canonical));
}

int64_t statistic_sum_bytes(const Plan& plan, ir::ValueId param) {
  for (const MovingStatistic& m : plan.moving_statistics) {
    if (m.state == param) {
      return statistic_buffers(plan) * plan.graph.type(param).numel() * static_cast<int64_t>(sizeof(float));
    }
  }
  return 0;
}

}  // namespace iputrain::planner
