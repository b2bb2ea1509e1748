// sign: sign(x): -1, 0 or 1 (f32). No gradient: piecewise constant, its derivative is 0 wherever it exists.
#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

const OpDef kSignOp{
    .kind = OpKind::Sign,
    .name = "sign",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = unary_forward<[](const ConstArrayMap& x) { return x.isNaN().select(x, x.sign()); }, 1>,
    .backward = nullptr,
    .cost = elementwise_cost_of<1>,
    .doc = "sign(x): -1, 0 or 1 (f32).",
    .inputs = kInputX,
    .edges = "sign(nan) = nan, as NumPy (PyTorch 1.13 gives 0, which hides the nan); sign(±0) = 0; sign(±inf) = ±1.",
};

}  // namespace iputrain::ir
