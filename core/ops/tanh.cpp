// tanh: the hyperbolic tangent (f32). Gradient: dy * (1 - tanh(x)^2).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kTanhOp{
    .kind = OpKind::Tanh,
    .name = "tanh",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.tanh(); }, 8>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<12>,
    .doc = "tanh(x) (f32).",
    .inputs = kInputX,
    .derivative = unary_derivative<[](const GradBlock& b) { return b.dy * (1.0f - b.x.tanh().square()); }>,
    .edges = "±1 at ±inf; nan stays nan.",
};

}  // namespace iputrain::ir
