#include "core/ops/minmax_util.hpp"

#include <fmt/format.h>

namespace iputrain::ir {

TensorType infer_minmax(std::span<const TensorType* const> in, const Attrs&) {
  TensorType t = infer_broadcast(in);
  if (t.dtype != DType::F32 && t.dtype != DType::I32) {
    throw OpError{fmt::format("operands must be f32 or i32, got {} and {}", in[0]->str(), in[1]->str()),
                  "cast them to f32 first"};
  }
  return t;
}

namespace {
template <typename T>
void run(const KernelArgs& args, bool is_max) {
  // A nan on either side is the result (b != b only for a float nan), as in NumPy and PyTorch.
  if (is_max) {
    broadcast_binary<T, T, T>(args.inputs[0], args.inputs[1], args.output,
                              [](T a, T b) { return (a < b || b != b) ? b : a; });
  } else {
    broadcast_binary<T, T, T>(args.inputs[0], args.inputs[1], args.output,
                              [](T a, T b) { return (b < a || b != b) ? b : a; });
  }
}
}  // namespace

template <bool kIsMax>
void minmax_forward(const KernelArgs& args) {
  if (args.inputs[0].type->dtype == DType::I32) {
    run<int32_t>(args, kIsMax);
  } else {
    run<float>(args, kIsMax);
  }
}

template <bool kIsMax>
std::vector<ValueId> minmax_backward(Graph& g, ValueId id, ValueId dy) {
  const ValueId a = g.node(id).inputs[0];
  const ValueId b = g.node(id).inputs[1];
  const Shape sa = g.type(a).shape;
  const Shape sb = g.type(b).shape;
  const std::string mode = kIsMax ? "max" : "min";
  const ValueId ga = g.add(OpKind::MinMaxGrad, {a, b, dy}, Attrs{{"mode", mode}, {"side", int64_t{0}}});
  const ValueId gb = g.add(OpKind::MinMaxGrad, {a, b, dy}, Attrs{{"mode", mode}, {"side", int64_t{1}}});
  return {reduce_to_shape(g, ga, sa), reduce_to_shape(g, gb, sb)};
}

template void minmax_forward<true>(const KernelArgs&);
template void minmax_forward<false>(const KernelArgs&);
template std::vector<ValueId> minmax_backward<true>(Graph&, ValueId, ValueId);
template std::vector<ValueId> minmax_backward<false>(Graph&, ValueId, ValueId);

}  // namespace iputrain::ir
