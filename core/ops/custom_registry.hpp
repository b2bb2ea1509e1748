// The ops programs register in C++ (include/iputrain/custom_op.hpp), by name, for the op table's
// `custom` and `custom_grad` entries to dispatch to. Registered ops live until the process ends, so
// a pointer found here stays valid; lookups may run on every worker thread at once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/ir/attrs.hpp"
#include "iputrain/custom_op.hpp"

namespace iputrain::ir {

//! The registered op `name`, or null.
const CustomOp* find_custom_op(std::string_view name);
//! Adds `op` (the caller checked its name against the builtins: api/custom_op_api.cpp). Throws
//! Error(Usage) when the name is registered already.
void add_custom_op(CustomOp op);
//! Every registered name, in registration order.
std::vector<std::string> custom_op_names();

//! The largest arity of a registered op (its operands are gathered in a fixed array).
inline constexpr size_t kMaxCustomInputs = 8;

//! The attributes of a node of a registered op, as its functions see them.
inline CustomAttributes custom_attributes(const Attrs& attrs, const CustomOp& op) {
  return CustomAttributes(&attrs, op.attributes);
}

}  // namespace iputrain::ir
