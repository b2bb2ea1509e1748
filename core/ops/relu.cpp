// relu: max(x, 0) (f32); nan stays nan and -0 becomes +0, as in PyTorch. Gradient: relu_grad(x, dy).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"
#include "core/parallel.hpp"

namespace iputrain::ir {

namespace {
namespace impl_relu {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32) {
    throw OpError{fmt::format("relu needs an f32 operand, got {}", x.str()), "cast it to f32 first"};
  }
  return x;
}

void forward(const KernelArgs& args) {
  const float* x = args.inputs[0].f32();
  float* y = args.output.f32();
  const int64_t n = args.output.numel();
  par::for_elements(n, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      y[i] = relu_value(x[i]);
    }
  });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  return {g.add(OpKind::ReluGrad, {g.node(id).inputs[0], dy})};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_relu
}  // namespace

const OpDef kReluOp{
    .kind = OpKind::Relu,
    .name = "relu",
    .arity = 1,
    .infer = impl_relu::infer,
    .forward = impl_relu::forward,
    .backward = impl_relu::backward,
    .cost = impl_relu::cost,
    .doc = "max(x, 0) (f32); nan stays nan. Gradient 0 at x = 0.",
    .inputs = kInputX,
    .edges =
        "nan stays nan, -0 gives 0. Gradient 0 at x <= 0 (the kink included), dy where x is nan "
        "(PyTorch).",
};

}  // namespace iputrain::ir
