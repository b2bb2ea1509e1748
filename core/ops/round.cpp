// round: round(x) to the nearest integer, halves to even as NumPy (0.5 -> 0, 1.5 -> 2, -2.5 -> -2) (f32). No gradient:
// piecewise constant, its derivative is 0 wherever it exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kRoundOp{
    .kind = OpKind::Round,
    .name = "round",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.rint(); }, 1>,
    .backward = nullptr,
    .cost = elementwise_cost_of<1>,
    .doc = "round(x) to the nearest integer, halves to even as NumPy (0.5 -> 0, 1.5 -> 2, -2.5 -> -2) (f32).",
    .inputs = kInputX,
    .edges =
        "halves go to the even neighbour (NumPy's round, PyTorch's round), not away from zero as std::round; ±inf, nan "
        "and -0 pass unchanged.",
};

}  // namespace iputrain::ir
