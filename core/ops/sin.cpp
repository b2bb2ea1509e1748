// sin: sin(x), x in radians (f32). Gradient: dy * cos(x).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kSinOp{
    .kind = OpKind::Sin,
    .name = "sin",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.sin(); }, 12>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<12>,
    .doc = "sin(x), x in radians (f32).",
    .inputs = kInputX,
    .derivative = unary_derivative<[](const GradBlock& b) { return b.dy * b.x.cos(); }>,
    .edges = "sin(±inf) = nan; nan stays nan; accurate for large |x| (1000, 1e30) as std::sin.",
};

}  // namespace iputrain::ir
