#include "planner/host_tables.hpp"

#include <fmt/format.h>

#include "iputrain/error.hpp"
#include "planner/sharding.hpp"

namespace iputrain::planner {

bool is_host_table(const ir::Node& n) {
  return ir::op_has(n.op, ir::op_flags::weight) && n.attrs.get_int("host", 0) != 0;
}

bool has_host_tables(const ir::Graph& g) {
  for (ir::ValueId p : g.params) {
    if (is_host_table(g.node(p))) {
      return true;
    }
  }
  return false;
}

namespace {

// The host table whose gradient `v` is, or kNoValue.
ir::ValueId table_of_gradient(const Plan& plan, ir::ValueId v) {
  const ir::Graph& g = plan.graph;
  if (!ir::op_has(g.node(v).op, ir::op_flags::row_scatter)) {
    return ir::kNoValue;
  }
  for (size_t k = 0; k < g.params.size() && k < plan.grads.size(); ++k) {
    if (is_host_table(g.node(g.params[k]))) {
      for (ir::ValueId part : plan.grads[k]) {
        if (part == v) {
          return g.params[k];
        }
      }
    }
  }
  return ir::kNoValue;
}

}  // namespace

bool host_node(const Plan& plan, ir::ValueId v) {
  const ir::Node& n = plan.graph.node(v);
  if (ir::op_has(n.op, ir::op_flags::row_gather)) {
    return is_host_table(plan.graph.node(n.inputs[0]));
  }
  return table_of_gradient(plan, v) != ir::kNoValue;
}

int64_t host_link_bytes(const Plan& plan, ir::ValueId v) {
  const ir::Graph& g = plan.graph;
  const ir::Node& n = g.node(v);
  if (ir::op_has(n.op, ir::op_flags::row_gather) && is_host_table(g.node(n.inputs[0]))) {
    return static_cast<int64_t>(n.type.bytes() + g.type(n.inputs[1]).bytes());  // the ids out, the rows in
  }
  if (table_of_gradient(plan, v) != ir::kNoValue) {
    return static_cast<int64_t>(g.type(n.inputs[1]).bytes());  // the row gradients, to the host
  }
  return 0;
}

void check_host_tables(const Plan& plan) {
  const ir::Graph& g = plan.graph;
  if (!has_host_tables(g)) {
    return;
  }
  std::vector<int32_t> readers(static_cast<size_t>(g.size()), 0);
  for (ir::ValueId id = 0; id < g.size(); ++id) {
    const ir::Node& n = g.node(id);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const ir::Node& in = g.node(n.inputs[i]);
      if (!is_host_table(in)) {
        continue;
      }
      if (!ir::op_has(n.op, ir::op_flags::row_gather) || i != 0 || n.attrs.get_int("axis", 0) != 0) {
        throw Error(ErrorKind::Semantic,
                    fmt::format("the host table '{}' is read by {}: a table in host memory is only looked up by "
                                "rows (gather(table, ids))",
                                in.name, ir::op_name(n.op)),
                    n.span, "use nn.embedding for a table the model reads otherwise");
      }
      if (++readers[static_cast<size_t>(n.inputs[i])] > 1) {
        throw Error(
            ErrorKind::Semantic,
            fmt::format("the host table '{}' is looked up twice: a host table has one lookup per micro-batch", in.name),
            n.span, "look up all the ids at once (concatenate them) and split the rows");
      }
    }
  }
  if (state_sharded(plan)) {
    for (ir::ValueId p : g.params) {
      if (is_host_table(g.node(p))) {
        throw Error(ErrorKind::Semantic,
                    fmt::format("the host table '{}' stays whole in host memory, but the plan shards the weights or "
                                "the optimizer state over the replicas' IPUs",
                                g.node(p).name),
                    g.node(p).span,
                    "set pipeline.replicated_weight_sharding and "
                    "pipeline.replicated_optimizer_state_sharding to false, or use nn.embedding");
      }
    }
  }
  for (size_t k = 0; k < g.params.size() && k < plan.grads.size(); ++k) {
    if (!is_host_table(g.node(g.params[k]))) {
      continue;
    }
    for (ir::ValueId part : plan.grads[k]) {
      if (!ir::op_has(g.node(part).op, ir::op_flags::row_scatter)) {
        throw Error(ErrorKind::Internal, fmt::format("the gradient of host table '{}' is not its lookup's scatter",
                                                     g.node(g.params[k]).name));
      }
    }
  }
}

}  // namespace iputrain::planner
