// ctc_greedy_decode: (logits f32[b, t, c], logit_lengths i32[b]; blank) -> i32[b, t], best path
// decoding: the most likely class of each of the first logit_lengths[i] steps (ties to the first
// index, a nan the largest, as argmax), repeats merged, blanks dropped, the symbols left-aligned and
// the rest of the row -1. Not differentiable.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/ops/ctc_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_ctc_greedy_decode {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const CtcDims d = check_ctc_logits(*in[0], attrs);
  if (in[1]->dtype != DType::I32 || in[1]->shape != Shape{d.b}) {
    throw OpError{fmt::format("logit_lengths must be i32[{}], got {}", d.b, in[1]->str()),
                  "the number of steps that count, one per sample"};
  }
  return TensorType{DType::I32, {d.b, d.t}};
}

// argmax's rule: the first of equal maxima, and the first nan above everything.
int32_t best_class(const float* z, int64_t c) {
  int64_t best = 0;
  for (int64_t k = 1; k < c && !std::isnan(z[best]); ++k) {
    if (std::isnan(z[k]) || z[k] > z[best]) {
      best = k;
    }
  }
  return static_cast<int32_t>(best);
}

void forward(const KernelArgs& args) {
  const Shape& shape = args.inputs[0].shape();
  const int64_t t = shape[1];
  const int64_t c = shape[2];
  const int32_t blank = ctc_blank(args.node.attrs, c);
  for (int64_t i = 0; i < shape[0]; ++i) {
    const int64_t steps = ctc_steps(args.node, args.inputs[1], i, t);
    const float* z = args.inputs[0].f32() + i * t * c;
    int32_t* out = args.output.i32() + i * t;
    int64_t n = 0;
    int32_t prev = -1;
    for (int64_t k = 0; k < steps; ++k) {
      const int32_t best = best_class(z + k * c, c);
      if (best != blank && best != prev) {
        out[n++] = best;
      }
      prev = best;
    }
    std::fill(out + n, out + t, -1);
  }
}

// A compare per logit.
Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel());
  return c;
}

constexpr std::string_view kInputs[] = {"logits", "logit_lengths"};
constexpr AttrSpec kAttrs[] = {{.name = "blank", .type = AttrType::Int, .number = 0, .min = -1}};

}  // namespace impl_ctc_greedy_decode
}  // namespace

const OpDef kCtcGreedyDecodeOp{
    .kind = OpKind::CtcGreedyDecode,
    .name = "ctc_greedy_decode",
    .arity = 2,
    .infer = impl_ctc_greedy_decode::infer,
    .forward = impl_ctc_greedy_decode::forward,
    .backward = nullptr,
    .cost = impl_ctc_greedy_decode::cost,
    .doc =
        "ctc_greedy_decode(logits f32[b, t, c], logit_lengths i32[b]; blank = 0) -> i32[b, t]: the best "
        "path (argmax per step), repeats merged, blanks dropped, left-aligned, padded with -1.",
    .inputs = impl_ctc_greedy_decode::kInputs,
    .attrs = impl_ctc_greedy_decode::kAttrs,
    .edges =
        "ties pick the first class and a nan is the largest (argmax's rule); a class repeated across a "
        "blank counts twice; a length outside [0, t] stops the run with a located data error.",
};

}  // namespace iputrain::ir
