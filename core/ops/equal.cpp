// equal: a == b with NumPy broadcasting; operands share a dtype; the result is bool (one byte, 0/1).
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_equal {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const DType d = in[0]->dtype;
  if (d != DType::F32 && d != DType::I32 && d != DType::Bool) {
    throw OpError{fmt::format("cannot compare {} tensors", dtype_name(d)), "cast them to f32 first"};
  }
  return infer_broadcast(in, DType::Bool);
}

template <typename T>
void compare(const KernelArgs& args) {
  broadcast_binary<T, T, uint8_t>(args.inputs[0], args.inputs[1], args.output,
                                  [](T x, T y) { return static_cast<uint8_t>(x == y); });
}

void forward(const KernelArgs& args) {
  switch (args.inputs[0].type->dtype) {
    case DType::I32:
      compare<int32_t>(args);
      break;
    case DType::Bool:
      compare<uint8_t>(args);
      break;
    default:
      compare<float>(args);
      break;
  }
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_equal
}  // namespace

const OpDef kEqualOp{
    .kind = OpKind::Equal,
    .name = "equal",
    .arity = 2,
    .infer = impl_equal::infer,
    .forward = impl_equal::forward,
    .backward = nullptr,
    .cost = impl_equal::cost,
    .doc = "a == b -> bool, NumPy broadcasting (f32, i32, bool).",
    .edges = "IEEE 754: nan equals nothing, itself included; -0 == 0.",
};

}  // namespace iputrain::ir
