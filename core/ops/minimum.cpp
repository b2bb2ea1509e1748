// minimum: the elementwise smaller of a and b with NumPy broadcasting (f32, i32). Gradient:
// dy goes to the side that wins; on ties each side gets half (the subgradient midpoint, as in
// PyTorch's minimum), through minmax_grad.
#include "core/ops/minmax_util.hpp"

namespace iputrain::ir {

const OpDef kMinimumOp{
    .kind = OpKind::Minimum,
    .name = "minimum",
    .arity = 2,
    .infer = infer_minmax,
    .forward = minmax_forward<false>,
    .backward = minmax_backward<false>,
    .cost = elementwise_cost_of<>,
    .doc =
        "minimum(a, b): the elementwise smaller value, broadcasting (f32, i32); the gradient goes to the "
        "smaller side, half to each on ties.",
    .edges =
        "nan on either side gives nan (NumPy, PyTorch); i32 exact. Gradient: dy/2 to each side on "
        "ties, 0 to the larger side, dy to both next to a nan (PyTorch).",
};

}  // namespace iputrain::ir
