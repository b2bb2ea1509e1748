// floor: floor(x): the largest integer <= x (f32). No gradient: piecewise constant, its derivative is 0 wherever it
// exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kFloorOp{
    .kind = OpKind::Floor,
    .name = "floor",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.floor(); }, 1>,
    .backward = nullptr,
    .cost = elementwise_cost_of<1>,
    .doc = "floor(x): the largest integer <= x (f32).",
    .inputs = kInputX,
    .edges = "±inf, nan and -0 pass unchanged (floor(-0.5) = -1, floor(-0) = -0).",
};

}  // namespace iputrain::ir
