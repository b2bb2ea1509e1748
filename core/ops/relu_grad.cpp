// relu_grad: (x, dy) -> 0 where x <= 0, else dy (f32, equal shapes): 0 at the kink, and a nan x
// passes dy on as PyTorch's relu does. The gradient of relu; it has
// no gradient of its own (relu is piecewise linear, so second derivatives vanish).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_relu_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& x = *in[0];
  const TensorType& dy = *in[1];
  if (x.dtype != DType::F32 || dy.dtype != DType::F32 || x.shape != dy.shape) {
    throw OpError{fmt::format("operands must be f32 of one shape, got {} and {}", x.str(), dy.str()), ""};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const float* x = args.inputs[0].f32();
  const float* dy = args.inputs[1].f32();
  float* dx = args.output.f32();
  const int64_t n = args.output.numel();
  par::for_elements(n, 1, [x, dy, dx](int64_t b, int64_t e) {
    // Both loads unconditional and the pointers held by value: a branch-free, vectorised select
    // (a branch on the sign of x mispredicts half the time).
    for (int64_t i = b; i < e; ++i) {
      const float g = dy[i];
      dx[i] = x[i] <= 0.0f ? 0.0f : g;
    }
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_relu_grad
}  // namespace

const OpDef kReluGradOp{
    .kind = OpKind::ReluGrad,
    .name = "relu_grad",
    .arity = 2,
    .infer = impl_relu_grad::infer,
    .forward = impl_relu_grad::forward,
    .backward = nullptr,
    .cost = impl_relu_grad::cost,
    .doc = "relu_grad(x, dy) = 0 where x <= 0, else dy (a nan x passes dy, as in PyTorch): the gradient of relu.",
    .edges = "0 where x <= 0, dy elsewhere, nan x included.",
};

}  // namespace iputrain::ir
