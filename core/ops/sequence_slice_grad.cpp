// sequence_slice_grad: the gradients of sequence_slice from dy (f32, dst's shape) and its three
// lists. side = "dst": dy where no slice wrote the row (zero everywhere under zero_unused); side =
// "src": zeros of src's shape (attribute shape) plus, for each src row a slice read, the dy of the
// dst row its value ended up in — a row a later slice overwrote passes nothing back. The slices are
// walked from the last, claiming dst rows in the workspace, so overlaps count once.
#include "core/ops/sequence_slice_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sequence_slice_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  if (in[0]->dtype != DType::F32 || in[0]->rank() == 0) {
    throw OpError{fmt::format("sequence_slice_grad: dy must be f32 of rank 1 or more, got {}", in[0]->str())};
  }
  check_slice_lists(in.subspan(1), "sequence_slice_grad");
  return {DType::F32, attrs.get_ints("shape")};
}

void forward(const KernelArgs& args) {
  const Tensor& dy = args.inputs[0];
  const int64_t dst_rows = dy.shape()[0];
  const bool to_src = args.node.attrs.get_str("side") == "src";
  const Shape& out_shape = args.output.shape();
  const SliceLists s = slice_lists(args, 1, dst_rows, to_src ? out_shape[0] : dst_rows);
  const size_t row = row_bytes(dy);
  const size_t width = row / sizeof(float);
  float* out = args.output.f32();
  if (!to_src) {
    if (args.node.attrs.get_int("zero_unused", 0) != 0) {
      std::memset(out, 0, args.output.type->bytes());
      return;
    }
    std::memcpy(out, dy.data, dy.type->bytes());
    for (int64_t i = 0; i < s.count; ++i) {
      std::memset(out + static_cast<size_t>(s.dst[i]) * width, 0, static_cast<size_t>(s.rows[i]) * row);
    }
    return;
  }
  std::memset(out, 0, args.output.type->bytes());
  auto* claimed = static_cast<uint8_t*>(args.workspace);
  std::memset(claimed, 0, static_cast<size_t>(dst_rows));
  for (int64_t i = s.count; i-- > 0;) {
    for (int64_t k = 0; k < s.rows[i]; ++k) {
      const int64_t r = s.dst[i] + k;
      if (claimed[r] != 0) {
        continue;  // a later slice wrote over this row
      }
      claimed[r] = 1;
      const float* from = dy.f32() + static_cast<size_t>(r) * width;
      float* to = out + static_cast<size_t>(s.src[i] + k) * width;
      for (size_t j = 0; j < width; ++j) {
        to[j] += from[j];
      }
    }
  }
}

size_t workspace(const Graph& g, const Node& node) {
  return static_cast<size_t>(std::max<int64_t>(1, g.type(node.inputs[0]).shape[0]));
}

Cost cost(const Graph& g, const Node& node) { return elementwise_cost(g, node, 1.0); }

constexpr std::string_view kSides[] = {"src", "dst"};
constexpr AttrSpec kAttrs[] = {{.name = "side", .type = AttrType::String, .required = true, .choices = kSides},
                               {.name = "zero_unused", .type = AttrType::Int, .number = 0, .min = 0, .max = 1}};

}  // namespace impl_sequence_slice_grad
}  // namespace

const OpDef kSequenceSliceGradOp{
    .kind = OpKind::SequenceSliceGrad,
    .name = "sequence_slice_grad",
    .arity = 4,
    .infer = impl_sequence_slice_grad::infer,
    .forward = impl_sequence_slice_grad::forward,
    .backward = nullptr,
    .cost = impl_sequence_slice_grad::cost,
    .doc =
        "sequence_slice_grad(dy, num_elems, src_offsets, dst_offsets; side, zero_unused, shape): sequence_slice's "
        "gradient for dst or src.",
    .workspace = impl_sequence_slice_grad::workspace,
    .attrs = impl_sequence_slice_grad::kAttrs,
    .edges = "adds dy values unchanged; a src row read by several slices sums their dy rows (IEEE sums).",
};

}  // namespace iputrain::ir
