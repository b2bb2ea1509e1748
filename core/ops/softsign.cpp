// softsign: x / (1 + |x|) (f32), with its limits ±1 at ±inf. Gradient: dy / (1 + |x|)^2.
#include <limits>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_softsign {

void forward(const KernelArgs& args) {
  unary_blocks(args, 3, [&](const ConstArrayMap& x, ArrayMap& y) {
    // x / (1 + |x|) is inf / inf at ±inf: the limit there is the sign.
    y = (x.abs() == std::numeric_limits<float>::infinity()).select(x.sign(), x / (1.0f + x.abs()));
  });
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 3.0); }

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  const auto d = 1.0f + b.x.abs();
  b.dx = b.dy / (d * d);
}

}  // namespace impl_softsign
}  // namespace

const OpDef kSoftsignOp{
    .kind = OpKind::Softsign,
    .name = "softsign",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_softsign::forward,
    .backward = unary_backward,
    .cost = impl_softsign::cost,
    .doc = "softsign(x) = x / (1 + |x|) (f32): a bounded activation in (-1, 1).",
    .inputs = kInputX,
    .derivative = impl_softsign::derivative,
    .edges =
        "±inf give ±1, the limit (PyTorch's x / (1 + |x|) gives nan there); nan stays nan; -0 stays -0. "
        "Gradient 1 / (1 + |x|)^2: 1 at 0, 0 at ±inf.",
};

}  // namespace iputrain::ir
