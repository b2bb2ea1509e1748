// The fuse pass: which pairs of consecutive kernels of a task run as one fused kernel. The op
// table says which ops may pair (op_flags::fuse_bias_head, fuse_relu_tail); the pass checks the
// graph and the task's order, and records each pair in its stage's programs
// (StagePrograms::fused), which the engine's task programs read. Nothing else decides a fusion:
// the engine only declines a recorded pair at run time for what the plan cannot know (where the
// arena put the buffers, rounding to a half type, floating-point traps, IPUTRAIN_FUSE=off).
#pragma once

#include <string>
#include <vector>

#include "core/ops/op.hpp"
#include "planner/plan.hpp"

namespace iputrain::planner {

//! Where the pass reads an op's flags: the op table's row (ir::op_flags_of); tests give others.
using OpFlagsOf = ir::OpFlags (*)(ir::OpKind);

//! The pairs of `nodes` (one task's list, in order) that run as one bias + relu kernel
//! (core/ops/bias_relu.hpp): a head (fuse_bias_head) and the next kernel, a tail
//! (fuse_relu_tail) whose only input is the head's result; the head's inputs x and a bias of f32
//! with the bias [C] along the result's last dimension (ir::bias_relu_types_fit); neither a value
//! a task hands on right after its kernel (a parameter's gradient part, a moving statistic), nor
//! a state_write, nor packed. Leaves have no kernel and do not separate a pair.
std::vector<FusedPair> fused_pairs(const Plan& plan, const std::vector<ir::ValueId>& nodes,
                                   OpFlagsOf flags_of = ir::op_flags_of);

//! The pass: fused_pairs of every task list of every stage, into StagePrograms::fused.
void fuse_kernels(Plan& plan, OpFlagsOf flags_of = ir::op_flags_of);

//! One line per fused pair (`--dump-after fuse`): stage, task, head and tail.
std::string fused_str(const Plan& plan);

}  // namespace iputrain::planner
