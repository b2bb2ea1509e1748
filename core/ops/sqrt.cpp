// sqrt: the square root (f32). Gradient: dy / (2 sqrt(x)).
#include <cmath>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sqrt {

// The correctly rounded square root on every element (vsqrtps once vectorised; the build has
// -fno-math-errno). Eigen's packet sqrt under EIGEN_FAST_MATH is x * rsqrt(x), which gives nan
// at +inf, flushes denormals and is a bit or two off, so a tensor's results depended on its size.
void forward(const KernelArgs& args) {
  unary_blocks(args, 4, [&](const ConstArrayMap& x, ArrayMap& y) {
    const float* px = x.data();
    float* py = y.data();
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      py[i] = std::sqrt(px[i]);
    }
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 4.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = 0.5f * b.dy * b.x.rsqrt();
}

}  // namespace impl_sqrt
}  // namespace

const OpDef kSqrtOp{
    .kind = OpKind::Sqrt,
    .name = "sqrt",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_sqrt::forward,
    .backward = unary_backward,
    .cost = impl_sqrt::cost,
    .doc = "sqrt(x) (f32).",
    .inputs = kInputX,
    .derivative = impl_sqrt::derivative,
    .edges =
        "correctly rounded on every path: sqrt(-0) = -0, sqrt(x < 0) = nan, sqrt(inf) = inf. Gradient "
        "dy / (2 sqrt(x)): inf at 0.",
};

}  // namespace iputrain::ir
