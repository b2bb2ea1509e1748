// cos: cos(x), x in radians (f32). Gradient: -dy * sin(x).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kCosOp{
    .kind = OpKind::Cos,
    .name = "cos",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.cos(); }, 12>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<12>,
    .doc = "cos(x), x in radians (f32).",
    .inputs = kInputX,
    .derivative = unary_derivative<[](const GradBlock& b) { return -b.dy * b.x.sin(); }>,
    .edges = "cos(±inf) = nan; nan stays nan; accurate for large |x| (1000, 1e30) as std::cos.",
};

}  // namespace iputrain::ir
