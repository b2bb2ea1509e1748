#include "planner/collectives.hpp"

#include <fmt/format.h>

#include "core/ops/collective_util.hpp"
#include "iputrain/error.hpp"
#include "planner/topology.hpp"

namespace iputrain::planner {

void check_collectives(const ir::Graph& g, int32_t replicas) {
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const ir::Node& n = g.node(id);
    const ir::OpDef& def = ir::op_def(n.op);
    if (def.traffic == nullptr) {
      continue;
    }
    const int64_t group = def.traffic(g, n).group;
    if (ir::group_size(group, replicas) == 0) {
      throw Error(ErrorKind::Semantic,
                  fmt::format("{} over groups of {} replicas, but the plan has {} replica{}", def.name, group, replicas,
                              replicas == 1 ? "" : "s"),
                  n.span,
                  "give `group` a divisor of the replicas, or change the replicas (ipu.auto_select_ipus / IPUs "
                  "per replica)");
    }
  }
}

namespace {

Collective kind_of(ir::CollectiveKind k) {
  switch (k) {
    case ir::CollectiveKind::AllGather:
      return Collective::AllGather;
    case ir::CollectiveKind::ReduceScatter:
    case ir::CollectiveKind::AllToAll:  // each member sends (G - 1) / G of its tensor, G - 1 steps
      return Collective::ReduceScatter;
    case ir::CollectiveKind::AllReduce:
      break;
  }
  return Collective::AllReduce;
}

}  // namespace

std::optional<NodeCollective> node_collective(const Plan& plan, ir::ValueId id) {
  const ir::Node& n = plan.graph.node(id);
  const ir::OpDef& def = ir::op_def(n.op);
  if (def.traffic == nullptr) {
    return std::nullopt;
  }
  const ir::ReplicaTraffic t = def.traffic(plan.graph, n);
  const int64_t group = std::max<int64_t>(1, ir::group_size(t.group, plan.placement.replicas));
  // The group's copies of this IPU sit where replicas 0 .. G - 1 sit (every group alike).
  const auto& physical = plan.placement.physical;
  const std::vector<std::vector<int32_t>> members(physical.begin(), physical.begin() + group);
  return NodeCollective{make_topology(plan.placement.topology.system, members), kind_of(t.kind), t.bytes};
}

double model_collective_bytes(const Plan& plan, const std::vector<ir::ValueId>& nodes) {
  double bytes = 0;
  for (ir::ValueId id : nodes) {
    const ir::Node& n = plan.graph.node(id);
    const ir::OpDef& def = ir::op_def(n.op);
    if (def.traffic == nullptr) {
      continue;
    }
    const ir::ReplicaTraffic t = def.traffic(plan.graph, n);
    const auto g = static_cast<double>(ir::group_size(t.group, plan.placement.replicas));
    const double passes = t.kind == ir::CollectiveKind::AllReduce ? 2 : 1;
    bytes += g > 1 ? passes * (g - 1) / g * t.bytes : 0;
  }
  return bytes;
}

}  // namespace iputrain::planner
