// loop_arg: a leaf of a loop's body (core/ops/loop_util.hpp) — a carried value, the counter, a value
// of the model the body reads, or (in a loop's gradient) a gradient flowing in; bound by the loop's
// kernel to memory it owns. Made by Graph::add_loop_arg.
#include "core/ops/op_util.hpp"

namespace iputrain::ir {

const OpDef kLoopArgOp{
    .kind = OpKind::LoopArg,
    .name = "loop_arg",
    .arity = 0,
    .infer = infer_leaf<OpKind::LoopArg>,
    .forward = nullptr,
    .backward = nullptr,
    .cost = nullptr,
    .doc =
        "A leaf of a loop's body (attribute index): bound by the loop to a carried value, the counter, a "
        "value the body reads, or a gradient.",
};

}  // namespace iputrain::ir
