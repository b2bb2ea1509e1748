// argmax: index of the largest element along attribute axis (default -1), f32 or i32 -> i32 with
// that dimension removed. Ties resolve to the first index; a nan is the largest (the first nan
// wins), as NumPy and PyTorch do. No gradient.
#include "core/ops/arg_extreme.hpp"

namespace iputrain::ir {

const OpDef kArgmaxOp{
    .kind = OpKind::Argmax,
    .name = "argmax",
    .arity = 1,
    .infer = infer_arg_extreme<true>,
    .forward = arg_extreme_forward<true>,
    .backward = nullptr,
    .cost = arg_extreme_cost,
    .doc =
        "argmax(x f32 | i32; axis = -1) -> i32 with that axis removed; ties pick the first index, the "
        "first nan wins.",
    .edges = "ties pick the first index; the first nan is the largest (NumPy, PyTorch); f32 and i32.",
};

}  // namespace iputrain::ir
