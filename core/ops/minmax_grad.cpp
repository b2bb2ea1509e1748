// minmax_grad: (a, b, dy) -> dy * w, shaped like dy (the broadcast output of maximum/minimum),
// where w = 1 if operand `side` (0 = a, 1 = b) wins under `mode` ("max" | "min"), 1/2 on a tie,
// 0 otherwise. The caller sums the result back to the operand's shape. Not differentiable.
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_minmax_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const std::string_view mode = str_attr(attrs, "mode", "");
  if (mode != "max" && mode != "min") {
    throw OpError{fmt::format("mode must be \"max\" or \"min\", got \"{}\"", mode), ""};
  }
  const int64_t side = int_attr(attrs, "side", 0);
  if (side != 0 && side != 1) {
    throw OpError{fmt::format("side must be 0 or 1, got {}", side), ""};
  }
  const TensorType ab = infer_broadcast(in.subspan(0, 2));
  require_f32(ab, "a");
  const TensorType& dy = *in[2];
  if (dy.dtype != DType::F32 || dy.shape != ab.shape) {
    throw OpError{fmt::format("dy must be f32{}, got {}", shape_str(ab.shape), dy.str()), ""};
  }
  return dy;
}

void forward(const KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  const Tensor& dy = args.inputs[2];
  const float* pa = a.f32();
  const float* pb = b.f32();
  const float* pd = dy.f32();
  float* out = args.output.f32();
  // Orient the comparison so "mine beats other" is one expression for every mode and side.
  const bool is_max = args.node.attrs.get_str("mode") == "max";
  const bool side_a = args.node.attrs.get_int("side") == 0;
  const RowLoop<3> loop = row_loop<3>({&a.shape(), &b.shape(), &dy.shape()}, args.output.shape());
  with_steps(loop.step, [&](auto sa, auto sb, auto sd) {
    for_rows(loop, 2, [&](int64_t o, const std::array<int64_t, 3>& off) {
      const float* ra = pa + off[0];
      const float* rb = pb + off[1];
      const float* rd = pd + off[2];
      for (int64_t j = 0; j < loop.inner; ++j) {
        const float mine = side_a ? ra[j * sa] : rb[j * sb];
        const float other = side_a ? rb[j * sb] : ra[j * sa];
        // As PyTorch: dy/2 on ties, 0 where the other side wins, dy otherwise (a nan on either
        // side: both sides get dy).
        const bool loses = is_max ? mine < other : mine > other;
        out[o + j] = mine == other ? 0.5f * rd[j * sd] : (loses ? 0.0f : rd[j * sd]);
      }
    });
  });
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 2.0);
}

}  // namespace impl_minmax_grad
}  // namespace

const OpDef kMinMaxGradOp{
    .kind = OpKind::MinMaxGrad,
    .name = "minmax_grad",
    .arity = 3,
    .infer = impl_minmax_grad::infer,
    .forward = impl_minmax_grad::forward,
    .backward = nullptr,
    .cost = impl_minmax_grad::cost,
    .doc =
        "minmax_grad(a, b, dy; mode = \"max\" | \"min\", side = 0 | 1): 0 where the other side wins, dy/2 on "
        "ties, else dy (both sides get dy next to a nan).",
    .edges = "the tie and nan rules of maximum and minimum.",
};

}  // namespace iputrain::ir
