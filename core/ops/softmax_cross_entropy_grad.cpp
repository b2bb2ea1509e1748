// softmax_cross_entropy_grad: (logits f32[..., C], labels i32[...], dy f32[...]) -> f32[..., C],
// (softmax(logits) - onehot(labels)) * dy[..., None]: the gradient of softmax_cross_entropy with
// respect to its logits. Not differentiable itself (no second-order training).
#include <fmt/format.h>

// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 exp (GCC bug 105593) where
// it is inlined into this file's kernels.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_softmax_cross_entropy_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  check_logits_labels(*in[0], *in[1]);
  if (in[2]->dtype != DType::F32 || in[2]->shape != in[1]->shape) {
    throw OpError{fmt::format("dy must be f32{}, got {}", shape_str(in[1]->shape), in[2]->str()), ""};
  }
  return *in[0];
}

void forward(const KernelArgs& args) {
  const Tensor& logits = args.inputs[0];
  const int64_t c = logits.shape().back();
  const int64_t rows = args.inputs[1].numel();
  const int32_t* labels = args.inputs[1].i32();
  const float* dy = args.inputs[2].f32();
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t label = labels[r];
    if (!label_ok(label, c)) {
      throw_bad_label(args.node, label, c);
    }
    Eigen::Map<const Eigen::ArrayXf> z(logits.f32() + r * c, c);
    Eigen::Map<Eigen::ArrayXf> dx(args.output.f32() + r * c, c);
    dx = (z - row_max(z.data(), c)).exp();
    dx *= dy[r] / dx.sum();
    dx[label] -= dy[r];
  }
}

// Per logit: subtract, exp (~8 flops), add, scale; per row a division.
Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = 12.0 * static_cast<double>(node.type.numel()) +
            5.0 * static_cast<double>(g.type(node.inputs[1]).numel());
  return c;
}

}  // namespace impl_softmax_cross_entropy_grad
}  // namespace

const OpDef kSoftmaxCrossEntropyGradOp{
    .kind = OpKind::SoftmaxCrossEntropyGrad,
    .name = "softmax_cross_entropy_grad",
    .arity = 3,
    .infer = impl_softmax_cross_entropy_grad::infer,
    .forward = impl_softmax_cross_entropy_grad::forward,
    .backward = nullptr,
    .cost = impl_softmax_cross_entropy_grad::cost,
    .doc = "softmax_cross_entropy_grad(logits, labels, dy) = (softmax(logits) - onehot(labels)) * dy.",
    .edges = "as softmax_cross_entropy's.",
};

}  // namespace iputrain::ir
