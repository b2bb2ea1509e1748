// triu: the elements on and above diagonal k of every matrix (the last two dimensions), zeros
// elsewhere; any dtype. Gradient: triu of dy.
#include "core/ops/triangle_util.hpp"

namespace iputrain::ir {

const OpDef kTriuOp{
    .kind = OpKind::Triu,
    .name = "triu",
    .arity = 1,
    .infer = infer_triangle<false>,
    .forward = triangle_forward<false>,
    .backward = triangle_backward,
    .cost = elementwise_cost_of<>,
    .doc = "triu(x; k = 0): element (i, j) of each matrix where j - i >= k, else 0 (any dtype).",
    .inputs = kInputX,
    .attrs = kTriangleAttrs,
    .edges = "moves values unchanged: nan and inf inside the triangle pass, outside it become 0.",
};

}  // namespace iputrain::ir
