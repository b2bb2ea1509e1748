// ceil: ceil(x): the smallest integer >= x (f32). No gradient: piecewise constant, its derivative is 0 wherever it
// exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kCeilOp{
    .kind = OpKind::Ceil,
    .name = "ceil",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.ceil(); }, 1>,
    .backward = nullptr,
    .cost = elementwise_cost_of<1>,
    .doc = "ceil(x): the smallest integer >= x (f32).",
    .inputs = kInputX,
    .edges = "±inf, nan and -0 pass unchanged (ceil(-0.5) = -0).",
};

}  // namespace iputrain::ir
