// The ops reference (docs/ops.md): every primitive of the op table, and after them the ops a
// program registered in C++ (through include/iputrain/custom_op.hpp; their definitions are
// core/public/iputrain/custom_op_def.hpp) when it registered any. The tool iputrain_gen_ops_doc
// prints it (it registers none, so docs/ops.md holds the table alone);
// iputrain::registered_ops_reference() gives a program the section of its own ops.
#pragma once

#include <string>
#include <vector>

#include "iputrain/custom_op_def.hpp"

namespace iputrain::ir {

//! The registered ops, in registration order (core/ops/custom_registry.hpp).
std::vector<const CustomOp*> registered_custom_ops();

//! The "Registered ops" section of the reference for `ops`: each op's operands, attributes with
//! their defaults, gradient, scratch, FLOPs and `doc`; "" when `ops` is empty.
std::string registered_ops_markdown(const std::vector<const CustomOp*>& ops);

//! The reference: the op table's primitives and their special values (docs/ops.md), then
//! registered_ops_markdown(registered) when `registered` is not empty. Throws std::runtime_error
//! naming an op of the table that lacks its `edges` text.
std::string ops_reference_markdown(const std::vector<const CustomOp*>& registered);

}  // namespace iputrain::ir
