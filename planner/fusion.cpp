#include "planner/fusion.hpp"

#include <fmt/format.h>

#include "core/ops/bias_relu.hpp"

namespace iputrain::planner {

namespace {

constexpr InstrKind kTaskKinds[] = {InstrKind::Forward, InstrKind::Recompute, InstrKind::Backward,
                                    InstrKind::BackwardWeights};

// Values a task hands on right after their kernel, before the next one runs: a parameter's
// gradient parts (into the accumulators' tree) and the moving statistics (into theirs). Some
// parts go by the Accumulate instead, which the arena decides per micro-batch; none is fused.
std::vector<bool> handed_on(const Plan& plan) {
  std::vector<bool> out(static_cast<size_t>(plan.graph.size()), false);
  for (const GradParts& parts : plan.grads) {
    for (ir::ValueId v : parts) {
      out[static_cast<size_t>(v)] = true;
    }
  }
  for (const MovingStatistic& s : plan.moving_statistics) {
    out[static_cast<size_t>(s.statistic)] = true;
  }
  return out;
}

// Whether head then tail, consecutive kernels, run as one bias + relu kernel.
bool pair_fits(const ir::Graph& g, ir::ValueId head, ir::ValueId tail, const std::vector<bool>& handed,
               OpFlagsOf flags_of) {
  const ir::Node& h = g.node(head);
  const ir::Node& t = g.node(tail);
  const auto has = [&](const ir::Node& n, ir::OpFlags f) { return (flags_of(n.op) & f) == f; };
  constexpr ir::OpFlags kNever = ir::op_flags::state_write | ir::op_flags::packed;
  if (!has(h, ir::op_flags::fuse_bias_head) || !has(t, ir::op_flags::fuse_relu_tail) ||
      (flags_of(h.op) & kNever) != 0 || (flags_of(t.op) & kNever) != 0) {
    return false;
  }
  if (h.inputs.size() != 2 || t.inputs.size() != 1 || t.inputs[0] != head) {
    return false;
  }
  if (handed[static_cast<size_t>(head)] || handed[static_cast<size_t>(tail)]) {
    return false;
  }
  return ir::bias_relu_types_fit(g.type(h.inputs[0]), g.type(h.inputs[1]), h.type, t.type);
}

}  // namespace

std::vector<FusedPair> fused_pairs(const Plan& plan, const std::vector<ir::ValueId>& nodes, OpFlagsOf flags_of) {
  const ir::Graph& g = plan.graph;
  const std::vector<bool> handed = handed_on(plan);
  std::vector<FusedPair> out;
  ir::ValueId prev = ir::kNoValue;  // the last kernel, unless it is already a pair's tail
  for (ir::ValueId v : nodes) {
    if (ir::op_def(g.node(v).op).forward == nullptr) {
      continue;  // a leaf: no kernel
    }
    if (prev != ir::kNoValue && pair_fits(g, prev, v, handed, flags_of)) {
      out.push_back({prev, v});
      prev = ir::kNoValue;
      continue;
    }
    prev = v;
  }
  return out;
}

void fuse_kernels(Plan& plan, OpFlagsOf flags_of) {
  for (StagePrograms& sp : plan.programs.stages) {
    for (InstrKind kind : kTaskKinds) {
      sp.fused(kind) = fused_pairs(plan, sp.nodes(kind), flags_of);
    }
  }
}

std::string fused_str(const Plan& plan) {
  std::string out;
  for (size_t s = 0; s < plan.programs.stages.size(); ++s) {
    for (InstrKind kind : kTaskKinds) {
      for (const FusedPair& p : plan.programs.stages[s].fused(kind)) {
        out += fmt::format("stage {} {}: %{} {} + %{} {}\n", s, instr_kind_name(kind), p.head,
                           ir::op_name(plan.graph.node(p.head).op), p.tail, ir::op_name(plan.graph.node(p.tail).op));
      }
    }
  }
  return out;
}

}  // namespace iputrain::planner
