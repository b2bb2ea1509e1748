// softmax_cross_entropy: (logits f32[..., C], labels i32[...]) -> f32[...], the per-example loss
// -log softmax(logits)[label] = logsumexp(logits) - logits[label]. The maximum is subtracted before
// exponentiating, so large logits neither overflow nor lose the answer. Gradient (logits only):
// softmax_cross_entropy_grad(logits, labels, dy).
#include <cmath>

// GCC 12 reports a false -Wmaybe-uninitialized inside Eigen's AVX-512 exp (GCC bug 105593) where
// it is inlined into this file's kernels.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include "core/ops/softmax_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_softmax_cross_entropy {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  check_logits_labels(*in[0], *in[1]);
  return TensorType{DType::F32, in[1]->shape};
}

void forward(const KernelArgs& args) {
  const Tensor& logits = args.inputs[0];
  const int64_t c = logits.shape().back();
  const int64_t rows = args.output.numel();
  const int32_t* labels = args.inputs[1].i32();
  float* loss = args.output.f32();
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t label = labels[r];
    if (!label_ok(label, c)) {
      throw_bad_label(args.node, label, c);
    }
    const float* z = logits.f32() + r * c;
    Eigen::Map<const Eigen::ArrayXf> row(z, c);
    const float m = row_max(z, c);
    const float s = (row - m).exp().sum();
    loss[r] = (m - z[label]) + std::log(s);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId logits = g.node(id).inputs[0];
  const ValueId labels = g.node(id).inputs[1];
  return {g.add(OpKind::SoftmaxCrossEntropyGrad, {logits, labels, dy}), kNoValue};
}

// Per logit: subtract, exp (~8 flops), add; per row a log and the max scan.
Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = 11.0 * static_cast<double>(g.type(node.inputs[0]).numel()) +
            10.0 * static_cast<double>(node.type.numel());
  return c;
}

constexpr std::string_view kInputs[] = {"logits", "labels"};

}  // namespace impl_softmax_cross_entropy
}  // namespace

const OpDef kSoftmaxCrossEntropyOp{
    .kind = OpKind::SoftmaxCrossEntropy,
    .name = "softmax_cross_entropy",
    .arity = 2,
    .infer = impl_softmax_cross_entropy::infer,
    .forward = impl_softmax_cross_entropy::forward,
    .backward = impl_softmax_cross_entropy::backward,
    .cost = impl_softmax_cross_entropy::cost,
    .doc =
        "softmax_cross_entropy(logits f32[..., C], labels i32[...]) -> f32[...]: "
        "logsumexp(logits) - logits[label], stable.",
    .inputs = impl_softmax_cross_entropy::kInputs,
    .edges =
        "stable logsumexp: logits of ±1000 give finite losses; a label outside [0, C) stops the run "
        "with a located data error.",
};

}  // namespace iputrain::ir
