// maximum: the elementwise larger of a and b with NumPy broadcasting (f32, i32). Gradient:
// dy goes to the side that wins; on ties each side gets half (the subgradient midpoint, as in
// PyTorch's maximum), through minmax_grad.
#include "core/ops/minmax_util.hpp"

namespace iputrain::ir {

const OpDef kMaximumOp{
    .kind = OpKind::Maximum,
    .name = "maximum",
    .arity = 2,
    .infer = infer_minmax,
    .forward = minmax_forward<true>,
    .backward = minmax_backward<true>,
    .cost = elementwise_cost_of<>,
    .doc =
        "maximum(a, b): the elementwise larger value, broadcasting (f32, i32); the gradient goes to the "
        "larger side, half to each on ties.",
    .edges =
        "nan on either side gives nan (NumPy, PyTorch); i32 exact. Gradient: dy/2 to each side on "
        "ties, 0 to the smaller side, dy to both next to a nan (PyTorch).",
};

}  // namespace iputrain::ir
