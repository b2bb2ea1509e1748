// ctc_loss: (logits f32[b, t, c], labels i32[b, l], logit_lengths i32[b], label_lengths i32[b];
// blank) -> f32[b], each sample's -log P(labels | logits) under CTC (Graves et al. 2006): the sum
// over every alignment of the first logit_lengths[i] steps that collapses (repeats merged, blanks
// dropped) to the first label_lengths[i] labels. log_softmax over the classes is applied inside,
// and the forward recursion runs in log space (double), so large logits neither overflow nor
// underflow. Gradient (logits only): ctc_loss_grad, which recomputes the forward variables rather
// than keeping them (an op has one output; they are t (2 l + 1) values per sample).
#include <cmath>

#include "core/ops/ctc_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_ctc_loss {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const CtcDims d = check_ctc_inputs(in, attrs);
  return TensorType{DType::F32, {d.b}};
}

void forward(const KernelArgs& args) {
  const Shape& shape = args.inputs[0].shape();
  const int64_t t = shape[1];
  const int64_t c = shape[2];
  auto* lse = static_cast<double*>(args.workspace);
  double* alpha = lse + t;
  // Sample by sample, in order: the result does not depend on the number of threads.
  for (int64_t i = 0; i < shape[0]; ++i) {
    const CtcSample s = ctc_sample(args.node, args.inputs, i);
    ctc_log_normalizers(s, c, lse);
    const double log_p = ctc_alpha(s, c, lse, alpha, false);
    args.output.f32()[i] = static_cast<float>(-log_p);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId dz = g.add(OpKind::CtcLossGrad, {n.inputs[0], n.inputs[1], n.inputs[2], n.inputs[3], dy},
                           Attrs{{"blank", n.attrs.get_int("blank", 0)}});
  return {dz, kNoValue, kNoValue, kNoValue};
}

// The log_softmax normaliser (exp and add per logit) and, per step and state of the extended
// label sequence, a three-way log-sum-exp (3 exp, a log, compares and adds).
Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  const Shape& s = g.type(node.inputs[0]).shape;
  const auto states = static_cast<double>(2 * g.type(node.inputs[1]).shape[1] + 1);
  c.flops = 10.0 * static_cast<double>(s[0] * s[1] * s[2]) + 30.0 * static_cast<double>(s[0] * s[1]) * states;
  return c;
}

// The step normalisers and two rows of forward variables, one sample at a time.
size_t workspace(const Graph& g, const Node& node) {
  const int64_t t = g.type(node.inputs[0]).shape[1];
  const int64_t states = 2 * g.type(node.inputs[1]).shape[1] + 1;
  return static_cast<size_t>(t + 2 * states) * sizeof(double);
}

constexpr std::string_view kInputs[] = {"logits", "labels", "logit_lengths", "label_lengths"};
constexpr AttrSpec kAttrs[] = {{.name = "blank", .type = AttrType::Int, .number = 0, .min = -1}};

}  // namespace impl_ctc_loss
}  // namespace

const OpDef kCtcLossOp{
    .kind = OpKind::CtcLoss,
    .name = "ctc_loss",
    .arity = 4,
    .infer = impl_ctc_loss::infer,
    .forward = impl_ctc_loss::forward,
    .backward = impl_ctc_loss::backward,
    .cost = impl_ctc_loss::cost,
    .doc =
        "ctc_loss(logits f32[b, t, c], labels i32[b, l], logit_lengths i32[b], label_lengths i32[b]; "
        "blank = 0) -> f32[b]: -log P(labels) under CTC, log_softmax applied inside, in log space.",
    .workspace = impl_ctc_loss::workspace,
    .inputs = impl_ctc_loss::kInputs,
    .attrs = impl_ctc_loss::kAttrs,
    .edges =
        "log space throughout (double): logits of ±1000 give finite losses. An alignment that cannot fit "
        "(fewer steps than labels plus the blanks between repeated labels) gives +inf, and ctc_loss_grad a "
        "zero gradient for that sample where PyTorch's gives nan (zero_infinity=False); no labels and no "
        "steps give 0. A nan or +inf logit in a counted step gives nan. A length outside [0, t] or [0, l], "
        "or a counted label outside [0, c) or equal to blank, stops the run with a located data error; "
        "steps and labels past the lengths are never read.",
};

}  // namespace iputrain::ir
