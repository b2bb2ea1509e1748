#include "engine/cluster/task_program.hpp"

#include <algorithm>
#include <numeric>

namespace iputrain::engine {

TaskProgram::TaskProgram(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes, const DeviceMemory& memory,
                         int64_t micro_batch, const std::map<ir::ValueId, ir::Tensor>& substitutes) {
  for (ir::ValueId v : nodes) {
    const ir::Node& n = graph.node(v);
    const ir::OpDef& def = ir::op_def(n.op);
    if (def.forward == nullptr) {
      continue;
    }
    Kernel k{v, &n, def.forward, static_cast<uint32_t>(operands_.size()), static_cast<uint32_t>(n.inputs.size()),
             memory.tensor(v, micro_batch)};
    for (ir::ValueId in : n.inputs) {
      const auto sub = substitutes.find(in);
      operands_.push_back(sub != substitutes.end() ? sub->second : memory.tensor(in, micro_batch));
    }
    kernels_.push_back(k);
  }
}

int64_t TaskProgram::run(const ir::ExecContext& ctx, void* workspace, const HalfRounding* rounding) const {
  const ir::Tensor* operands = operands_.data();
  int64_t overflows = 0;
  for (const Kernel& k : kernels_) {
    k.forward(ir::KernelArgs{*k.node, {operands + k.first_operand, k.operand_count}, k.output, &ctx, workspace});
    // Rounded before any reader sees it, as if the kernel had written the half type; the key
    // repeats for a recomputed value, which therefore comes back with the same bits.
    if (rounding != nullptr && is_float(k.output.type->dtype)) {
      const uint64_t key = rounding->stochastic ? rounding_key(ctx.seed, k.value, ctx.step) : 0;
      overflows += round_in_place(k.output.f32(), k.output.numel(), *rounding, key);
    }
  }
  return overflows;
}

size_t TaskProgram::workspace_bytes(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes) {
  size_t most = 0;
  for (ir::ValueId v : nodes) {
    if (const auto ws = ir::op_def(graph.node(v).op).workspace) {
      most = std::max(most, ws(graph, graph.node(v)));
    }
  }
  return most;
}

TaskPrograms::TaskPrograms(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes, const DeviceMemory& memory,
                           int64_t micro_batches, const std::map<ir::ValueId, ir::Tensor>& substitutes) {
  // Micro-batches m and m + period use the same copies of every buffer the task touches.
  int64_t period = 1;
  for (ir::ValueId v : nodes) {
    period = std::lcm(period, static_cast<int64_t>(std::max(1, memory.slots(v))));
    for (ir::ValueId in : graph.node(v).inputs) {
      period = std::lcm(period, static_cast<int64_t>(std::max(1, memory.slots(in))));
    }
    if (period >= micro_batches) {
      break;
    }
  }
  // More copies than micro-batches: compile each micro-batch (m < micro_batches, so m % count = m).
  const int64_t count = std::max<int64_t>(1, std::min(period, micro_batches));
  programs_.reserve(static_cast<size_t>(count));
  for (int64_t m = 0; m < count; ++m) {
    programs_.emplace_back(graph, nodes, memory, m, substitutes);
  }
}

}  // namespace iputrain::engine
