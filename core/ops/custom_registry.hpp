// The ops programs register in C++ (core/public/iputrain/custom_op_def.hpp, registered through
// include/iputrain/custom_op.hpp), by name, for the op table's `custom` and `custom_grad` entries to dispatch to.
// Registered ops live until the process ends, so a pointer found here stays valid; lookups may run on every worker
// thread at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <array>

#include "core/ir/attrs.hpp"
#include "core/ops/op.hpp"
#include "iputrain/custom_op_def.hpp"

namespace iputrain::ir {

class Graph;

//! The registered op `name`, or null.
const CustomOp* find_custom_op(std::string_view name);
//! Adds `op` (the caller checked its name against the builtins: api/custom_op.cpp). Throws
//! Error(Usage) when the name is registered already.
void add_custom_op(CustomOp op);
//! Every registered name, in registration order.
std::vector<std::string> custom_op_names();
//! The registered ops `g` calls (its `custom` nodes, those of its loop bodies too), each once,
//! sorted by name. Defined in custom.cpp, the op's row.
std::vector<const CustomOp*> custom_ops_called(const Graph& g);

//! The largest arity of a registered op (its operands are gathered in a fixed array).
inline constexpr size_t kMaxCustomInputs = 8;

//! The attributes of a node of a registered op, as its functions see them.
inline CustomAttributes custom_attributes(const Attrs& attrs, const CustomOp& op) {
  return CustomAttributes(&attrs, op.attributes);
}

//! A tensor as a registered op's kernel sees it.
inline CustomInput custom_input(const Tensor& t) { return {t.f32(), t.shape(), t.numel()}; }

//! A kernel's first `n` operands as a registered op's kernel sees them (a fixed array: nothing is
//! allocated).
inline std::array<CustomInput, kMaxCustomInputs> custom_inputs(const KernelArgs& args, size_t n) {
  std::array<CustomInput, kMaxCustomInputs> ins{};
  for (size_t i = 0; i < n; ++i) {
    ins[i] = custom_input(args.inputs[i]);
  }
  return ins;
}

}  // namespace iputrain::ir
