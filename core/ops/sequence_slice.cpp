// sequence_slice: dst with runs of rows of src copied in, the seed's sequence_slice. Slice i copies
// num_elems[i] rows (along the first dimension) from src starting at src_offsets[i] to dst starting
// at dst_offsets[i]; the three are i32[n] tensors computed at run time, the slices copied in order
// (a later one overwrites an earlier one where they meet). zero_unused = 1 zeroes the rows of dst no
// slice writes. dst and src share their dtype and every dimension but the first. A slice outside
// either tensor stops the run with an error naming it. Gradients (sequence_slice_grad): each src row
// gets the dy of the dst row its value ended up in; dst keeps dy where nothing overwrote it.
#include "core/ops/sequence_slice_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_sequence_slice {

TensorType infer(std::span<const TensorType* const> in, const Attrs& /*attrs*/) {
  const TensorType& dst = *in[0];
  const TensorType& src = *in[1];
  if (dst.rank() == 0 || src.dtype != dst.dtype || src.rank() != dst.rank() ||
      !std::equal(src.shape.begin() + 1, src.shape.end(), dst.shape.begin() + 1)) {
    throw OpError{fmt::format("sequence_slice: src {} and dst {} must share their dtype and every dimension but the "
                              "first",
                              src.str(), dst.str()),
                  "slices copy whole rows of the first dimension"};
  }
  check_slice_lists(in.subspan(2), "sequence_slice");
  return dst;
}

void forward(const KernelArgs& args) {
  const Tensor& dst = args.inputs[0];
  const Tensor& src = args.inputs[1];
  const size_t row = row_bytes(dst);
  auto* out = static_cast<std::byte*>(args.output.data);
  if (args.node.attrs.get_int("zero_unused", 0) != 0) {
    std::memset(out, 0, dst.type->bytes());
  } else if (args.output.data != dst.data) {
    par::copy(out, dst.data, dst.type->bytes());
  }
  const SliceLists s = slice_lists(args, 2, dst.shape()[0], src.shape()[0]);
  const auto* from = static_cast<const std::byte*>(src.data);
  for (int64_t i = 0; i < s.count; ++i) {
    std::memcpy(out + static_cast<size_t>(s.dst[i]) * row, from + static_cast<size_t>(s.src[i]) * row,
                static_cast<size_t>(s.rows[i]) * row);
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const std::vector<ValueId> lists{dy, n.inputs[2], n.inputs[3], n.inputs[4]};
  Attrs to_dst{{"side", std::string("dst")},
               {"zero_unused", n.attrs.get_int("zero_unused", 0)},
               {"shape", g.type(n.inputs[0]).shape}};
  Attrs to_src{{"side", std::string("src")}, {"shape", g.type(n.inputs[1]).shape}};
  const ValueId ddst = g.add(OpKind::SequenceSliceGrad, lists, std::move(to_dst));
  const ValueId dsrc = g.add(OpKind::SequenceSliceGrad, lists, std::move(to_src));
  return {ddst, dsrc, kNoValue, kNoValue, kNoValue};
}

Cost cost(const Graph& g, const Node& node) { return {0, static_cast<double>(node.type.bytes()) * 2, 0}; }

constexpr AttrSpec kAttrs[] = {{.name = "zero_unused", .type = AttrType::Int, .number = 0, .min = 0, .max = 1}};

}  // namespace impl_sequence_slice
}  // namespace

constexpr std::string_view kSequenceSliceInputs[] = {"dst", "src", "num_elems", "src_offsets", "dst_offsets"};

const OpDef kSequenceSliceOp{
    .kind = OpKind::SequenceSlice,
    .name = "sequence_slice",
    .arity = 5,
    .infer = impl_sequence_slice::infer,
    .forward = impl_sequence_slice::forward,
    .backward = impl_sequence_slice::backward,
    .cost = impl_sequence_slice::cost,
    .doc =
        "sequence_slice(dst, src, num_elems, src_offsets, dst_offsets i32[n]; zero_unused = 0): dst with "
        "num_elems[i] rows of src from src_offsets[i] copied to dst_offsets[i], in order; zero_unused zeroes the "
        "rows no slice writes.",
    .inputs = kSequenceSliceInputs,
    .attrs = impl_sequence_slice::kAttrs,
    .edges =
        "moves values unchanged; a slice outside src or dst (or a negative count) stops the run with an "
        "error naming it.",
};

}  // namespace iputrain::ir
