// ctc_loss_grad: (logits f32[b, t, c], labels i32[b, l], logit_lengths i32[b], label_lengths i32[b],
// dy f32[b]; blank) -> f32[b, t, c], the gradient of ctc_loss with respect to its logits:
// dy[i] * (softmax(logits) - the posterior of each class at each step), from the forward and
// backward variables (alpha, beta) in log space. Zero past logit_lengths[i], and zero for a sample
// no alignment fits (its loss is +inf). Not differentiable itself (no second-order training).
#include <algorithm>

#include <fmt/format.h>

#include "core/ops/ctc_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_ctc_loss_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const CtcDims d = check_ctc_inputs(in, attrs);
  if (in[4]->dtype != DType::F32 || in[4]->shape != Shape{d.b}) {
    throw OpError{fmt::format("dy must be f32[{}], got {}", d.b, in[4]->str()), ""};
  }
  return *in[0];
}

void forward(const KernelArgs& args) {
  const Shape& shape = args.inputs[0].shape();
  const int64_t t = shape[1];
  const int64_t c = shape[2];
  const int64_t states = 2 * args.inputs[1].shape()[1] + 1;
  auto* lse = static_cast<double*>(args.workspace);
  double* alpha = lse + t;
  double* scratch = alpha + t * states;
  const float* dy = args.inputs[4].f32();
  float* dz = args.output.f32();
  std::fill(dz, dz + args.output.numel(), 0.0f);
  // Sample by sample, in order: the result does not depend on the number of threads.
  for (int64_t i = 0; i < shape[0]; ++i) {
    const CtcSample s = ctc_sample(args.node, args.inputs.first(4), i);
    ctc_log_normalizers(s, c, lse);
    const double log_p = ctc_alpha(s, c, lse, alpha, true);
    if (log_p == kCtcNegInf) {
      continue;  // no alignment fits: an infinite loss, and no gradient (see the edges)
    }
    ctc_gradient(s, c, lse, alpha, log_p, dy[i], scratch, dz + i * t * c);
  }
}

// The forward recursion, the backward one (about as much again, with the emissions' exps) and,
// per logit, the softmax and the scaling.
Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  const Shape& s = node.type.shape;
  const auto states = static_cast<double>(2 * g.type(node.inputs[1]).shape[1] + 1);
  c.flops = 25.0 * static_cast<double>(s[0] * s[1] * s[2]) + 75.0 * static_cast<double>(s[0] * s[1]) * states;
  return c;
}

// The step normalisers, every row of the forward variables, two rows of the backward ones and
// one row of class sums, one sample at a time.
size_t workspace(const Graph& g, const Node& node) {
  const Shape& s = node.type.shape;
  const int64_t states = 2 * g.type(node.inputs[1]).shape[1] + 1;
  return static_cast<size_t>(s[1] + s[1] * states + 2 * states + s[2]) * sizeof(double);
}

constexpr AttrSpec kAttrs[] = {{.name = "blank", .type = AttrType::Int, .number = 0, .min = -1}};

}  // namespace impl_ctc_loss_grad
}  // namespace

const OpDef kCtcLossGradOp{
    .kind = OpKind::CtcLossGrad,
    .name = "ctc_loss_grad",
    .arity = 5,
    .infer = impl_ctc_loss_grad::infer,
    .forward = impl_ctc_loss_grad::forward,
    .backward = nullptr,
    .cost = impl_ctc_loss_grad::cost,
    .doc =
        "ctc_loss_grad(logits, labels, logit_lengths, label_lengths, dy; blank = 0) = dy * (softmax(logits) - "
        "posterior of each class per step), zero past the lengths.",
    .workspace = impl_ctc_loss_grad::workspace,
    .attrs = impl_ctc_loss_grad::kAttrs,
    .edges = "as ctc_loss's; a sample with an infinite loss gets a zero gradient (PyTorch: nan).",
};

}  // namespace iputrain::ir
