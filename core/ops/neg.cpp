// neg: -x (f32, i32).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_neg {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& x = *in[0];
  if (x.dtype != DType::F32 && x.dtype != DType::I32) {
    throw OpError{fmt::format("cannot negate {}", x.str()), "cast it to i32 or f32 first"};
  }
  return x;
}

template <typename T>
void negate(const T* x, T* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = -x[i];
  }
}

// i32 wraps: -(-2^31) is -2^31, as NumPy and PyTorch give (uint32 arithmetic is defined to wrap).
void negate(const int32_t* x, int32_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<int32_t>(0u - static_cast<uint32_t>(x[i]));
  }
}

void forward(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  if (x.type->dtype == DType::I32) {
    negate(x.i32(), args.output.i32(), x.numel());
  } else {
    negate(x.f32(), args.output.f32(), x.numel());
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  return {g.add(OpKind::Neg, {dy})};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_neg
}  // namespace

const OpDef kNegOp{
    .kind = OpKind::Neg,
    .name = "neg",
    .arity = 1,
    .infer = impl_neg::infer,
    .forward = impl_neg::forward,
    .backward = impl_neg::backward,
    .cost = impl_neg::cost,
    .doc = "-x (f32, i32).",
    .inputs = kInputX,
    .edges = "f32: flips the sign (nan stays nan, -0 and 0 swap). i32 wraps: -(-2^31) = -2^31.",
};

}  // namespace iputrain::ir
