// slice: a strided window of x (any dtype): attributes begin, end (exclusive) and optional strides,
// one entry per leading dimension (missing trailing entries take the whole dimension). Negative
// begin/end count from the end and out-of-range ones are clamped, as in NumPy (so a huge end means
// "to the end"); a negative stride walks backwards as in NumPy. Gradient: slice_grad, which writes dy back into zeros.
#include "core/ops/element_bits.hpp"
#include "core/ops/slice_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_slice {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& x = *in[0];
  return TensorType{x.dtype, slice_shape(slice_spec(x.shape, attrs))};
}

template <typename T>
void run(const KernelArgs& args) {
  const Tensor& x = args.inputs[0];
  const T* src = static_cast<const T*>(x.data);
  T* out = static_cast<T*>(args.output.data);
  for_each_sliced(slice_spec(x.shape(), args.node.attrs), x.shape(),
                  [&](int64_t i, int64_t j) { out[i] = src[j]; });
}

void forward(const KernelArgs& args) {
  with_element_bits(args.output.type->dtype, [&](auto bits) { run<decltype(bits)>(args); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  Attrs attrs = n.attrs;
  attrs.set("shape", g.type(n.inputs[0]).shape);
  return {g.add(OpKind::SliceGrad, {dy}, std::move(attrs))};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 0.0);
}

}  // namespace impl_slice
}  // namespace

const OpDef kSliceOp{
    .kind = OpKind::Slice,
    .name = "slice",
    .arity = 1,
    .infer = impl_slice::infer,
    .forward = impl_slice::forward,
    .backward = impl_slice::backward,
    .cost = impl_slice::cost,
    .doc =
        "slice(x; begin, end, strides = 1): a strided window, NumPy rules (negative counts from the end, "
        "clamped); any dtype.",
    .edges =
        "moves values unchanged; a negative stride walks backwards from begin, bounds clamped as in "
        "NumPy.",
    .cost_class = CostClass::Rearrange,
};

}  // namespace iputrain::ir
