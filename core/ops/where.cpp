// where: (cond bool, a, b) -> a where cond else b, broadcasting all three (a and b share a dtype:
// f32, i32 or bool; the result has it). Gradient: where(cond, dy, 0) to a and where(cond, 0, dy)
// to b, each summed back to its operand's shape; none to cond.
#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_where {

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& cond = *in[0];
  if (cond.dtype != DType::Bool) {
    throw OpError{fmt::format("the condition must be bool, got {}", cond.str()),
                  "compare values (e.g. greater(x, 0)) to get a bool tensor"};
  }
  const TensorType ab = infer_broadcast(in.subspan(1, 2));
  const auto shape = broadcast_shapes(cond.shape, ab.shape);
  if (!shape) {
    throw OpError{fmt::format("the condition {} cannot be broadcast with {}", cond.str(), ab.str()),
                  "trailing dimensions must be equal or 1"};
  }
  TensorType t{ab.dtype, *shape};
  check_rank(t);
  return t;
}

template <typename T>
void select(const KernelArgs& args) {
  const Tensor& c = args.inputs[0];
  const Tensor& a = args.inputs[1];
  const Tensor& b = args.inputs[2];
  const uint8_t* pc = c.u8();
  const T* pa = static_cast<const T*>(a.data);
  const T* pb = static_cast<const T*>(b.data);
  T* out = static_cast<T*>(args.output.data);
  const int64_t n = args.output.numel();
  if (n == 0) {
    return;
  }
  // Coalesced rows (a mask [s, s] over scores [b, h, s, s] is b*h rows of s*s).
  const RowLoop<3> loop = row_loop<3>({&c.shape(), &a.shape(), &b.shape()}, args.output.shape());
  with_steps(loop.step, [&](auto sc, auto sa, auto sb) {
    for_rows(loop, 1, [&](int64_t o, const std::array<int64_t, 3>& off) {
      const uint8_t* rc = pc + off[0];
      const T* ra = pa + off[1];
      const T* rb = pb + off[2];
      T* ro = out + o;
      for (int64_t j = 0; j < loop.inner; ++j) {
        const T x = ra[j * sa];  // both loads unconditional: a branch-free select
        const T y = rb[j * sb];
        ro[j] = rc[j * sc] != 0 ? x : y;
      }
    });
  });
}

void forward(const KernelArgs& args) {
  if (args.output.type->dtype == DType::Bool) {
    select<uint8_t>(args);
  } else {
    select<uint32_t>(args);  // f32 and i32 move as 32-bit words
  }
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const ValueId cond = n.inputs[0];
  const Shape sa = g.type(n.inputs[1]).shape;
  const Shape sb = g.type(n.inputs[2]).shape;
  const ValueId zero = g.add_constant(0.0, TensorType{DType::F32, {}});
  const ValueId da = g.add(OpKind::Where, {cond, dy, zero});
  const ValueId db = g.add(OpKind::Where, {cond, zero, dy});
  return {kNoValue, reduce_to_shape(g, da, sa), reduce_to_shape(g, db, sb)};
}

Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node);
}

}  // namespace impl_where
}  // namespace

const OpDef kWhereOp{
    .kind = OpKind::Where,
    .name = "where",
    .arity = 3,
    .infer = impl_where::infer,
    .forward = impl_where::forward,
    .backward = impl_where::backward,
    .cost = impl_where::cost,
    .doc = "where(cond bool, a, b) = a where cond else b, broadcasting all three; differentiable in a and b.",
    .edges = "selects: a nan or inf on the side not chosen never reaches the output, and gets gradient 0.",
};

}  // namespace iputrain::ir
