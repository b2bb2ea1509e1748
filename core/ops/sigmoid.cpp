// sigmoid: 1 / (1 + e^-x) (f32), computed without overflow for large |x|. Gradient:
// dy * s * (1 - s).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kSigmoidOp{
    .kind = OpKind::Sigmoid,
    .name = "sigmoid",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.logistic(); }, 8>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<12>,
    .doc = "sigmoid(x) = 1 / (1 + e^-x) (f32), stable for large |x|.",
    .inputs = kInputX,
    .derivative = unary_derivative<[](const GradBlock& b) { return b.dy * b.x.logistic() * (1.0f - b.x.logistic()); }>,
    .edges = "0 at -inf, 1 at inf, no overflow for large |x|; nan stays nan.",
};

}  // namespace iputrain::ir
