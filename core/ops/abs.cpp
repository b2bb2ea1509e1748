// abs: |x| (f32). Gradient: dy * sign(x), 0 at x = 0.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kAbsOp{
    .kind = OpKind::Abs,
    .name = "abs",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.abs(); }, 1>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<1>,
    .doc = "abs(x) = |x| (f32); gradient sign(x), 0 at 0.",
    .inputs = kInputX,
    // sign(x): 0 at 0 and at nan, as PyTorch's gradient of abs.
    .derivative = unary_derivative<[](const GradBlock& b) {
      return b.dy * ((b.x > 0.0f).cast<float>() - (b.x < 0.0f).cast<float>());
    }>,
    .edges = "abs(nan) = nan, abs(-0) = 0. Gradient dy * sign(x): 0 at 0 and at nan (PyTorch).",
};

}  // namespace iputrain::ir
