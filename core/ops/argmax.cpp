// argmax: index of the largest element along attribute axis (default -1), f32 -> i32 with that
// dimension removed. Ties resolve to the first index; nan elements are never chosen over numbers.
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32) {
    throw OpError{fmt::format("argmax needs an f32 operand, got {}", x.str()), "cast it to f32 first"};
  }
  const int64_t axis = attrs.get_int("axis", -1);
  const auto d = normalize_axis(axis, x.rank());
  if (!d) {
    throw OpError{fmt::format("axis {} is out of range for {}", axis, x.str()), ""};
  }
  if (x.shape[static_cast<size_t>(*d)] == 0) {
    throw OpError{fmt::format("argmax over an empty axis of {}", x.str()), ""};
  }
  Shape out = x.shape;
  out.erase(out.begin() + *d);
  return TensorType{DType::I32, out};
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const Shape& s = x.shape();
  const auto axis = static_cast<size_t>(*normalize_axis(args.node.attrs.get_int("axis", -1), x.type->rank()));
  int64_t outer = 1;
  int64_t inner = 1;
  for (size_t d = 0; d < s.size(); ++d) {
    if (d < axis) {
      outer *= s[d];
    } else if (d > axis) {
      inner *= s[d];
    }
  }
  const int64_t n = s[axis];
  const float* px = x.f32();
  int32_t* py = args.output.i32();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const float* p = px + o * n * inner + i;
      int32_t best = 0;
      float best_v = p[0];
      for (int64_t j = 1; j < n; ++j) {
        const float v = p[j * inner];
        // `!(v <= best_v)` would prefer nan; a strict `>` keeps the first of equal maxima.
        if (v > best_v || (best_v != best_v && v == v)) {
          best_v = v;
          best = static_cast<int32_t>(j);
        }
      }
      py[o * inner + i] = best;
    }
  }
}

Cost cost(const Graph& g, const Node& node) {
  Cost c = elementwise_cost(g, node, 0.0);
  c.flops = static_cast<double>(g.type(node.inputs[0]).numel());
  return c;
}

}  // namespace

const OpDef kArgmaxOp{
    .kind = OpKind::Argmax,
    .name = "argmax",
    .arity = 1,
    .infer = infer,
    .forward = forward,
    .backward = nullptr,
    .cost = cost,
    .doc = "argmax(x f32; axis = -1) -> i32 with that axis removed; ties pick the first index.",
};

}  // namespace iputrain::ir
