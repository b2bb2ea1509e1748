// softmax: exp(x - max) / sum(exp(x - max)) along attribute axis (default -1), f32. The maximum is subtracted
// first, so large inputs cannot overflow. Gradient: softmax_grad(y, dy).
#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

const OpDef kSoftmaxOp{
    .kind = OpKind::Softmax,
    .name = "softmax",
    .arity = 1,
    .infer = infer_softmax,
    .forward = softmax_forward<false>,
    .backward = softmax_backward<false>,
    .cost = elementwise_cost_of<14>,
    .doc = "softmax(x; axis = -1) = exp(x) / sum(exp(x)) along axis (f32), max-subtracted.",
    .inputs = kInputX,
    .attrs = kSoftmaxAttrs,
    .edges =
        "max-subtracted: large logits do not overflow; -inf gives 0; a row holding nan or +inf gives "
        "nan (PyTorch).",
};

}  // namespace iputrain::ir
