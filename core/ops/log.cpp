// log: the natural logarithm (f32); log(0) = -inf, log(x < 0) = nan. Gradient: dy / x.
#include <cmath>
#include <limits>

#include "core/ops/unary_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_log {

// Eigen's vector log reads a denormal input as the smallest normal one (log(1e-40) = -87.34
// instead of -92.10): those inputs take std::log, so every path gives the same values.
void forward(const KernelArgs& args) {
  unary_blocks(args, 8, [&](const ConstArrayMap& x, ArrayMap& y) {
    y = x.log();
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      if (x[i] > 0.0f && x[i] < std::numeric_limits<float>::min()) {
        y[i] = std::log(x[i]);
      }
    }
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 10.0);
}

void derivative(const Attrs&, const float* x, const float* dy, float* dx, int64_t n) {
  GradBlock b(x, dy, dx, n);
  b.dx = b.dy / b.x;
}

}  // namespace impl_log
}  // namespace

const OpDef kLogOp{
    .kind = OpKind::Log,
    .name = "log",
    .arity = 1,
    .infer = infer_unary_f32,
    .forward = impl_log::forward,
    .backward = unary_backward,
    .cost = impl_log::cost,
    .doc = "log(x), natural logarithm (f32); log(0) = -inf.",
    .inputs = kInputX,
    .derivative = impl_log::derivative,
    .edges =
        "log(0) = -inf, log(x < 0) = nan, log(inf) = inf; denormals exact (log(1e-40) = -92.1). "
        "Gradient dy / x (inf at 0).",
};

}  // namespace iputrain::ir
