// Ops a program embedding iputrain adds in C++: register_op() makes a new primitive that model
// files call by name, like a builtin (`y = my_op(x, alpha = 0.5)`), with its shape rule, its kernel,
// its gradient (or none), and the FLOPs and temporary bytes the planner prices it with. The engine
// runs it on every virtual IPU like the built-in ops; the planner costs it, places it in a stage
// and sizes its temporaries.
//
//   iputrain::CustomOp op;
//   op.name = "scaled_softplus";
//   op.attributes = {{"beta", 1.0}};
//   op.shape = [](const iputrain::CustomShapes& in, const iputrain::CustomAttributes&) { return in[0]; };
//   op.forward = [](const iputrain::CustomCall& c) { ... c.output.data[i] = ... c.inputs[0].data[i] ... };
//   op.backward = [](const iputrain::CustomGradCall& c) { ... c.grad.data[i] = c.dy.data[i] * ... };
//   op.version = "1";   // bump when the kernels change: checkpoints record it (with the operands,
//                       // attributes and defaults, and whether there is a backward) and check it
//   iputrain::register_op(std::move(op));   // before loading the models that call it
//
// The op's definition (CustomOp) and what its kernels may do are in iputrain/custom_op_def.hpp.
#pragma once

#include <string>
#include <vector>

#include "iputrain/custom_op_def.hpp"

namespace iputrain {

//! Registers `op` for every model loaded after the call. Throws iputrain::Error(Usage) when its name
//! is taken (a builtin, an op or another registered op) or malformed, when it lacks shape or
//! forward, or when its version is not one line.
void register_op(CustomOp op);

//! The names of the ops registered so far, in registration order.
std::vector<std::string> registered_ops();

//! The ops reference's section on the ops registered so far, as markdown in the form of
//! docs/ops.md: a "Registered ops" heading and a table row per op (its operands, attributes with
//! their defaults, whether it has a gradient, declares FLOPs or scratch, and its `doc`), in
//! registration order; "" when none is registered.
std::string registered_ops_reference();

}  // namespace iputrain
