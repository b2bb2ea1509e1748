#include "engine/cluster/task_program.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/ops/bias_relu.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

TaskProgram::TaskProgram(const ir::Graph& graph, const std::vector<ir::ValueId>& nodes, const DeviceMemory& memory,
                         int64_t micro_batch, int32_t instr, const std::map<ir::ValueId, ir::Tensor>& substitutes,
                         const std::vector<GradPush>& pushes, const std::vector<StateSink>& sinks,
                         const std::vector<planner::FusedPair>& fused)
    : graph_(&graph), sinks_(sinks) {
  for (ir::ValueId v : nodes) {
    const ir::Node& n = graph.node(v);
    const ir::OpDef& def = ir::op_def(n.op);
    if (def.forward == nullptr) {
      continue;
    }
    Kernel k{v, &n, def.forward, static_cast<uint32_t>(operands_.size()), static_cast<uint32_t>(n.inputs.size()),
             memory.tensor(v, micro_batch, instr)};
    for (ir::ValueId in : n.inputs) {
      const auto sub = substitutes.find(in);
      operands_.push_back(sub != substitutes.end() ? sub->second : memory.tensor(in, micro_batch, instr));
    }
    for (const GradPush& p : pushes) {
      if (p.grad == v) {
        k.tree = p.tree;
        k.leaf = p.leaf;
      }
    }
    for (const StateSink& sink : sinks_) {
      k.sink = sink.value == v ? &sink : k.sink;
    }
    kernels_.push_back(k);
  }
  fuse(fused);
}

void TaskProgram::fuse(const std::vector<planner::FusedPair>& fused) {
  // Both lists are in the task's order.
  size_t next = 0;
  for (size_t i = 0; i + 1 < kernels_.size() && next < fused.size(); ++i) {
    Kernel& head = kernels_[i];
    const Kernel& tail = kernels_[i + 1];
    const planner::FusedPair& pair = fused[next];
    if (head.value != pair.head) {
      continue;
    }
    if (tail.value != pair.tail || head.tree != nullptr || tail.tree != nullptr || head.sink != nullptr ||
        tail.sink != nullptr) {
      throw Error(ErrorKind::Internal,
                  fmt::format("the plan fuses %{} and %{}, which this task runs apart", pair.head, pair.tail));
    }
    // The plan decided the pair (planner/fusion.hpp). A guard, not a decision: only the run knows
    // whether the fused kernels are switched off (IPUTRAIN_FUSE=off) and where the arena put the
    // buffers (the tail reads the head's copy; their overlaps, ir::bias_relu_buffers_fit). Rounding
    // and traps are checked as the task runs.
    head.bias_relu_with_next = ir::fused_kernels_enabled() && operands_[tail.first_operand].data == head.output.data &&
                               ir::bias_relu_buffers_fit(operands_[head.first_operand],
                                                         operands_[head.first_operand + 1], head.output, tail.output);
    ++next;
    ++i;  // the tail heads no pair
  }
  if (next != fused.size()) {
    throw Error(ErrorKind::Internal, fmt::format("the plan fuses %{} and %{}, which this task does not run in a row",
                                                 fused[next].head, fused[next].tail));
  }
}

int64_t TaskProgram::run(const ir::ExecContext& ctx, void* workspace, const HalfRounding* rounding,
                         const FpTrapSite* traps) const {
  return traps != nullptr && traps->traps ? run_kernels<true>(ctx, workspace, rounding, traps)
                                          : run_kernels<false>(ctx, workspace, rounding, nullptr);
}

template <bool kTrap>
int64_t TaskProgram::run_kernels(const ir::ExecContext& ctx, void* workspace, const HalfRounding* rounding,
                                 const FpTrapSite* traps) const {
  const ir::Tensor* operands = operands_.data();
  int64_t overflows = 0;
  for (size_t i = 0; i < kernels_.size(); ++i) {
    const Kernel& k = kernels_[i];
    const std::span<const ir::Tensor> inputs{operands + k.first_operand, k.operand_count};
    if (!kTrap && rounding == nullptr && k.bias_relu_with_next) {
      ir::bias_relu(inputs[0], inputs[1], k.output, kernels_[i + 1].output);
      ++i;  // the relu is done
      continue;
    }
    if constexpr (kTrap) {
      fp_trap_arm();
    }
    const bool packed = ir::op_has(k.node->op, ir::op_flags::packed);  // a loop's parts, not one f32 value
    if (packed && rounding != nullptr) {
      // A loop rounds its body's results itself and counts their overflows here.
      ir::ExecContext inner = ctx;
      int64_t body_overflows = 0;
      inner.rounding = rounding;
      inner.overflows = &body_overflows;
      k.forward(ir::KernelArgs{*k.node, inputs, k.output, &inner, workspace});
      overflows += body_overflows;
    } else {
      k.forward(ir::KernelArgs{*k.node, inputs, k.output, &ctx, workspace});
    }
    if constexpr (kTrap) {
      // The kernel's own f32 result: a half result beyond its range is loss scaling's business
      // (counted below), not a trap.
      if (!packed) {
        fp_trap_check(*graph_, k.value, inputs, k.output, *traps);
      }
    }
    // Rounded before any reader sees it, as if the kernel had written the half type; the key
    // repeats for a recomputed value, which therefore comes back with the same bits.
    if (rounding != nullptr && k.output.type->dtype == DType::F32 && !packed) {  // f32 storage
      const uint64_t key = rounding->stochastic ? rounding_key(ctx.seed, k.value, ctx.step) : 0;
      overflows += round_in_place(k.output.f32(), k.output.numel(), *rounding, key);
    }
    if (k.tree != nullptr) {
      k.tree->push(k.leaf, k.output.f32());
    }
    if (k.sink != nullptr) {
      const size_t bytes = k.output.type->bytes();
      std::memcpy(k.sink->state, k.output.data, bytes);
      if (k.sink->copy != nullptr) {
        std::memcpy(k.sink->copy, k.output.data, bytes);
      }
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

}  // namespace iputrain::engine
