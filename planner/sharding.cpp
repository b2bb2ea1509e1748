#include "planner/sharding.hpp"

#include <algorithm>

#include "planner/precision.hpp"

namespace iputrain::planner {

bool state_sharded(const Plan& plan) {
  return plan.placement.replicas > 1 && (plan.decided.shard_optimizer_state || plan.decided.shard_weights);
}

bool weights_sharded(const Plan& plan) { return plan.placement.replicas > 1 && plan.decided.shard_weights; }

bool sharded_param(const Plan& plan, ir::ValueId p) {
  const ir::Graph& g = plan.graph;
  for (size_t k = 0; k < g.params.size(); ++k) {
    if (g.params[k] == p) {
      return k < plan.grads.size() && !plan.grads[k].empty();
    }
  }
  return false;
}

std::vector<ir::ValueId> task_weights(const Plan& plan, int32_t stage, InstrKind kind) {
  const ir::Graph& g = plan.graph;
  std::vector<bool> read(static_cast<size_t>(g.size()), false);
  for (ir::ValueId v : plan.programs.stages.at(static_cast<size_t>(stage)).nodes(kind)) {
    for (ir::ValueId in : g.node(v).inputs) {
      read[static_cast<size_t>(in)] = true;
    }
  }
  std::vector<ir::ValueId> out;
  for (size_t k = 0; k < g.params.size(); ++k) {
    const ir::ValueId p = g.params[k];
    if (read[static_cast<size_t>(p)] && k < plan.grads.size() && !plan.grads[k].empty()) {
      out.push_back(p);
    }
  }
  return out;
}

int64_t gathered_bytes(const Plan& plan, ir::ValueId p) {
  const TensorType& t = plan.graph.type(p);
  const DType compute = plan.decided.device.compute;
  return is_half(compute) && is_float(t.dtype) ? t.numel() * static_cast<int64_t>(dtype_size(compute))
                                                : static_cast<int64_t>(t.bytes());
}

int64_t task_gather_bytes(const Plan& plan, int32_t stage, InstrKind kind) {
  if (!weights_sharded(plan)) {
    return 0;
  }
  int64_t bytes = 0;
  for (ir::ValueId p : task_weights(plan, stage, kind)) {
    bytes += gathered_bytes(plan, p);
  }
  return bytes;
}

int64_t gather_buffer_bytes(const Plan& plan, int32_t ipu) {
  if (!weights_sharded(plan) || ipu < 0 || static_cast<size_t>(ipu) >= plan.programs.ipus.size()) {
    return 0;
  }
  int64_t most = 0;
  for (const Instr& in : plan.programs.ipus[static_cast<size_t>(ipu)]) {
    if (is_task(in.kind)) {
      most = std::max(most, task_gather_bytes(plan, in.stage, in.kind));
    }
  }
  return most;
}

namespace {

int64_t block_bytes(const Plan& plan, ir::ValueId p) {
  const ir::Graph& g = plan.graph;
  const int64_t whole =
      device_weight_bytes(g, p, plan.decided.device.compute, plan.settings.plain.training_master_weights);
  const int64_t n = g.type(p).numel();
  return n == 0 ? 0 : whole / n * shard_capacity(n, plan.placement.replicas);
}

bool offloaded_block(const Plan& plan, ir::ValueId p) {
  return weights_sharded(plan) && plan.decided.offload_weights && sharded_param(plan, p);
}

}  // namespace

int64_t resident_weight_bytes(const Plan& plan, ir::ValueId p) {
  if (!weights_sharded(plan) || !sharded_param(plan, p)) {
    return device_weight_bytes(plan.graph, p, plan.decided.device.compute, plan.settings.plain.training_master_weights);
  }
  return offloaded_block(plan, p) ? 0 : block_bytes(plan, p);
}

int64_t remote_weight_bytes(const Plan& plan, ir::ValueId p) {
  return offloaded_block(plan, p) ? block_bytes(plan, p) : 0;
}

}  // namespace iputrain::planner
