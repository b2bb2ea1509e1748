// tril: the elements on and below diagonal k of every matrix (the last two dimensions), zeros
// elsewhere; any dtype. Gradient: tril of dy.
#include "core/ops/triangle_util.hpp"

namespace iputrain::ir {

const OpDef kTrilOp{
    .kind = OpKind::Tril,
    .name = "tril",
    .arity = 1,
    .infer = infer_triangle<true>,
    .forward = triangle_forward<true>,
    .backward = triangle_backward,
    .cost = elementwise_cost_of<>,
    .doc = "tril(x; k = 0): element (i, j) of each matrix where j - i <= k, else 0 (any dtype).",
    .inputs = kInputX,
    .attrs = kTriangleAttrs,
    .edges = "moves values unchanged: nan and inf inside the triangle pass, outside it become 0.",
};

}  // namespace iputrain::ir
