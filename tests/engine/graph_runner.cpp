#include "graph_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "engine/cluster/alignment.hpp"
#include "iputrain/error.hpp"

namespace iputrain::test_support {

using engine::buffer_aligned;
using engine::FpTrapSite;
using engine::kBufferAlign;

void GraphRunner::Free::operator()(std::byte* p) const { std::free(p); }

GraphRunner::GraphRunner(const ir::Graph& graph, const std::vector<std::vector<ir::ValueId>>& programs)
    : graph_(graph), offset_(static_cast<size_t>(graph.size()), -1) {
  for (const auto& order : programs) {
    for (ir::ValueId v : order) {
      if (offset_[static_cast<size_t>(v)] < 0) {
        offset_[static_cast<size_t>(v)] = static_cast<int64_t>(bytes_);
        bytes_ += buffer_aligned(std::max<size_t>(1, graph.type(v).bytes()));
      }
    }
  }
  memory_.reset(static_cast<std::byte*>(std::aligned_alloc(kBufferAlign, std::max<size_t>(bytes_, kBufferAlign))));
  if (!memory_) {
    throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes", bytes_));
  }
  std::memset(memory_.get(), 0, bytes_);
  for (ir::ValueId v = 0; v < graph.size(); ++v) {
    const ir::Node& n = graph.node(v);
    if (n.op == ir::OpKind::Constant && has(v)) {
      ir::Tensor t = tensor(v);
      const double value = n.attrs.get_float("value");
      for (int64_t i = 0; i < t.numel(); ++i) {
        switch (n.type.dtype) {
          case DType::I32:
            t.i32()[i] = static_cast<int32_t>(value);
            break;
          case DType::Bool:
            t.u8()[i] = value != 0 ? 1 : 0;
            break;
          default:
            t.f32()[i] = static_cast<float>(value);
            break;
        }
      }
    }
  }
  for (const auto& order : programs) {
    for (ir::ValueId v : order) {
      if (const auto ws = ir::op_def(graph.node(v).op).workspace) {
        workspace_bytes_ = std::max(workspace_bytes_, ws(graph, graph.node(v)));
      }
    }
  }
  if (workspace_bytes_ > 0) {
    workspace_.reset(static_cast<std::byte*>(std::aligned_alloc(kBufferAlign, buffer_aligned(workspace_bytes_))));
    if (!workspace_) {
      throw Error(ErrorKind::Runtime, fmt::format("cannot allocate {} bytes of scratch", workspace_bytes_));
    }
  }
  for (const auto& order : programs) {
    programs_.push_back(compile(order));
  }
}

bool GraphRunner::has(ir::ValueId id) const {
  return id >= 0 && id < graph_.size() && offset_[static_cast<size_t>(id)] >= 0;
}

ir::Tensor GraphRunner::tensor(ir::ValueId id) const {
  if (!has(id)) {
    throw Error(ErrorKind::Internal, fmt::format("value %{} has no buffer", id));
  }
  return ir::Tensor{&graph_.type(id), memory_.get() + offset_[static_cast<size_t>(id)]};
}

Program GraphRunner::compile(const std::vector<ir::ValueId>& order) const {
  Program p;
  for (ir::ValueId v : order) {
    const ir::Node& n = graph_.node(v);
    const ir::OpDef& def = ir::op_def(n.op);
    if (def.forward == nullptr) {
      continue;  // leaves: inputs are fed, params and constants live in their buffers
    }
    Program::Instr instr{
        v,        &n, def.forward, static_cast<uint32_t>(p.operands_.size()), static_cast<uint32_t>(n.inputs.size()),
        tensor(v)};
    for (ir::ValueId in : n.inputs) {
      p.operands_.push_back(tensor(in));
    }
    p.instrs_.push_back(instr);
  }
  return p;
}

void GraphRunner::run(const Program& program, const ir::ExecContext& ctx, const FpTrapSite* traps) const {
  const ir::Tensor* operands = program.operands_.data();
  if (traps == nullptr || !traps->traps) {
    for (const Program::Instr& in : program.instrs_) {
      in.forward(
          ir::KernelArgs{*in.node, {operands + in.first_operand, in.operand_count}, in.output, &ctx, workspace_.get()});
    }
    return;
  }
  for (const Program::Instr& in : program.instrs_) {
    const std::span<const ir::Tensor> inputs{operands + in.first_operand, in.operand_count};
    engine::fp_trap_arm();
    in.forward(ir::KernelArgs{*in.node, inputs, in.output, &ctx, workspace_.get()});
    engine::fp_trap_check(graph_, in.value, inputs, in.output, *traps);
  }
}

}  // namespace iputrain::test_support
