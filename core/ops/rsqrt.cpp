// rsqrt: 1 / sqrt(x) (f32), the normalisations' inverse standard deviation. Gradient:
// -dy / (2 x sqrt(x)).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kRsqrtOp{
    .kind = OpKind::Rsqrt,
    .name = "rsqrt",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.rsqrt(); }, 4>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<5>,
    .doc = "rsqrt(x) = 1 / sqrt(x) (f32).",
    .inputs = kInputX,
    // -y^3 / 2 with y = rsqrt(x), as PyTorch computes it (the sign at -0 follows y = -inf).
    .derivative = unary_derivative<[](const GradBlock& b) { return -0.5f * b.dy * b.x.rsqrt().cube(); }>,
    .edges =
        "rsqrt(0) = inf, rsqrt(-0) = -inf, rsqrt(inf) = 0, rsqrt(x < 0) = nan. Gradient -dy * y^3 / 2 "
        "(PyTorch's form).",
};

}  // namespace iputrain::ir
