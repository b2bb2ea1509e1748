// loop_part: one part of a loop's packed result (core/ops/loop_util.hpp), typed: attributes offset
// (4-byte elements), dtype and shape. Its bytes are copied as they are. Gradient (f32 parts): dy
// placed at the part's offset of a packed buffer of zeros, as a slice_grad of the packed vector.
#include <fmt/format.h>

#include <cstring>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_loop_part {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const TensorType& packed = *in[0];
  const auto dtype = parse_dtype(attrs.get_str("dtype"));
  if (!dtype || packed.dtype != DType::F32 || packed.rank() != 1) {
    throw OpError{fmt::format("loop_part: reads a packed f32 vector, got {}", packed.str()), "", "dtype"};
  }
  TensorType t{*dtype, attrs.get_ints("shape")};
  const int64_t offset = attrs.get_int("offset");
  if (offset < 0 || offset * 4 + static_cast<int64_t>(t.bytes()) > packed.numel() * 4) {
    throw OpError{fmt::format("loop_part: {} at element {} does not fit {}", t.str(), offset, packed.str()), "",
                  "offset"};
  }
  return t;
}

void forward(const KernelArgs& args) {
  const auto* src = static_cast<const std::byte*>(args.inputs[0].data) + args.node.attrs.get_int("offset") * 4;
  std::memcpy(args.output.data, src, args.output.type->bytes());
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const int64_t offset = n.attrs.get_int("offset");
  const int64_t size = n.type.numel();
  const ValueId flat = g.add(OpKind::Reshape, {dy}, Attrs{{"shape", Shape{size}}});
  Attrs window{{"begin", Shape{offset}}, {"end", Shape{offset + size}}, {"shape", g.type(n.inputs[0]).shape}};
  return {g.add(OpKind::SliceGrad, {flat}, std::move(window))};
}

Cost cost(const Graph& g, const Node& node) {
  return {0, static_cast<double>(node.type.bytes()), static_cast<double>(node.type.bytes())};
}

constexpr AttrSpec kAttrs[] = {{.name = "offset", .type = AttrType::Int, .required = true, .min = 0},
                               {.name = "dtype", .type = AttrType::String, .required = true}};

}  // namespace impl_loop_part
}  // namespace

constexpr std::string_view kLoopPartInputs[] = {"packed"};

const OpDef kLoopPartOp{
    .kind = OpKind::LoopPart,
    .name = "loop_part",
    .arity = 1,
    .infer = impl_loop_part::infer,
    .forward = impl_loop_part::forward,
    .backward = impl_loop_part::backward,
    .cost = impl_loop_part::cost,
    .doc =
        "loop_part(packed; offset, dtype, shape): one value of a loop's packed result (a final carried "
        "value, a collected stack, a gradient), its bytes unchanged.",
    .inputs = kLoopPartInputs,
    .attrs = impl_loop_part::kAttrs,
    .edges = "moves bytes unchanged.",
};

}  // namespace iputrain::ir
