// log1p: log(1 + x) (f32), exact for small |x| where log(1 + x) rounds 1 + x away. Gradient:
// dy / (1 + x).
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kLog1pOp{
    .kind = OpKind::Log1p,
    .name = "log1p",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.log1p(); }, 10>,
    .backward = unary_backward,
    .cost = elementwise_cost_of<11>,
    .doc = "log(1 + x) (f32), accurate where x is small: log1p(1e-10) = 1e-10 where log(1 + 1e-10) = 0.",
    .inputs = kInputX,
    .derivative = unary_derivative<[](const GradBlock& b) { return b.dy / (1.0f + b.x); }>,
    .edges =
        "log1p(-1) = -inf, log1p(x < -1) = nan, log1p(inf) = inf, log1p(-0) = -0; denormals exact "
        "(log1p(1e-40) = 1e-40). Gradient dy / (1 + x) (inf at -1).",
};

}  // namespace iputrain::ir
