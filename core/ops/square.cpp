// square: x * x (f32). Gradient: 2 x dy.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kSquareOp{
    .kind = OpKind::Square,
    .name = "square",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.square(); }, 1>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<1>,
    .doc = "square(x) = x * x (f32).",
    .inputs = kInputX,
    .derivative = unary_derivative<[](const GradBlock& b) { return 2.0f * b.dy * b.x; }>,
    .edges = "overflows to inf beyond ±1.8e19; nan stays nan.",
};

}  // namespace iputrain::ir
