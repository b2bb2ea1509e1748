// pow: a ** b with NumPy broadcasting (f32), std::pow semantics (a negative base with a
// non-integer exponent gives nan).
//
// Gradients: d/da = b * a^(b-1) (0 where b = 0); d/db = a^b * ln(a). There is no log primitive, so the second is a
// pow node with attribute `times_log_base = 1`, which computes a^b * ln(a), as PyTorch does: 0 at
// a = 0 for b >= 0 (the limit), nan for a < 0 (ln is undefined there). That variant is a gradient
// helper and has no gradient of its own. No gradient flows to a constant
// exponent (x ** 2), which spares the log entirely.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/ops/op_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_pow {

bool times_log_base(const Attrs& attrs) {
  return attrs.get_int("times_log_base", 0) != 0;
}

bool times_exponent(const Attrs& attrs) { return attrs.get_int("times_exponent", 0) != 0; }

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  TensorType t = infer_broadcast(in);
  if (t.dtype != DType::F32) {
    throw OpError{fmt::format("pow needs f32 operands, got {} and {}", in[0]->str(), in[1]->str()),
                  "cast them to f32 first"};
  }
  return t;
}

void forward(const KernelArgs& args) {
  const Tensor& a = args.inputs[0];
  const Tensor& b = args.inputs[1];
  if (times_log_base(args.node.attrs)) {
    broadcast_binary<float, float, float>(a, b, args.output, [](float x, float y) {
      return x == 0.0f && y >= 0.0f ? 0.0f : std::pow(x, y) * std::log(x);
    });
    return;
  }
  if (times_exponent(args.node.attrs)) {
    broadcast_binary<float, float, float>(
        a, b, args.output, [](float x, float y) { return y == 0.0f ? 0.0f : y * std::pow(x, y - 1.0f); });
    return;
  }
  // Squares and square roots are the common exponents; spare them the general pow.
  if (b.numel() == 1 && b.f32()[0] == 2.0f) {
    broadcast_binary<float, float, float>(a, b, args.output, [](float x, float) { return x * x; });
    return;
  }
  if (b.numel() == 1 && b.f32()[0] == 0.5f) {
    // pow(-inf, 0.5) is +inf and pow(-0, 0.5) is +0, where sqrt gives nan and -0.
    broadcast_binary<float, float, float>(a, b, args.output, [](float x, float) {
      return x == -std::numeric_limits<float>::infinity() ? std::numeric_limits<float>::infinity()
                                                          : std::sqrt(x) + 0.0f;
    });
    return;
  }
  broadcast_binary<float, float, float>(a, b, args.output, [](float x, float y) { return std::pow(x, y); });
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  if (times_log_base(n.attrs) || times_exponent(n.attrs)) {
    throw Error(ErrorKind::Internal, "pow's gradient helpers have no gradient");
  }
  const ValueId a = n.inputs[0];
  const ValueId b = n.inputs[1];
  const Shape sa = g.type(a).shape;
  const Shape sb = g.type(b).shape;
  // A constant non-zero exponent (x ** 2) is b * a^(b-1) in plain ops; any other is the helper
  // pow(times_exponent), which gives 0 where b = 0 (as PyTorch), not 0 * 0^-1 = nan at a = 0.
  const bool plain = g.node(b).op == OpKind::Constant && g.node(b).attrs.get_float("value") != 0.0;
  ValueId slope;
  if (plain) {
    const ValueId one = g.add_constant(1.0, TensorType{DType::F32, {}});
    const ValueId b_minus_1 = g.add(OpKind::Sub, {b, one});
    slope = g.add(OpKind::Mul, {b, g.add(OpKind::Pow, {a, b_minus_1})});
  } else {
    slope = g.add(OpKind::Pow, {a, b}, Attrs{{"times_exponent", int64_t{1}}});
  }
  const ValueId da = reduce_to_shape(g, g.add(OpKind::Mul, {dy, slope}), sa);
  if (g.node(b).op == OpKind::Constant) {
    return {da, kNoValue};
  }
  const ValueId dlog = g.add(OpKind::Pow, {a, b}, Attrs{{"times_log_base", int64_t{1}}});
  const ValueId db = reduce_to_shape(g, g.add(OpKind::Mul, {dy, dlog}), sb);
  return {da, db};
}

// pow is exp(b * log(a)): two transcendental functions of roughly ten flops each.
Cost cost(const Graph& g, const Node& node) {
  return elementwise_cost(g, node, 20.0);
}

}  // namespace impl_pow
}  // namespace

const OpDef kPowOp{
    .kind = OpKind::Pow,
    .name = "pow",
    .arity = 2,
    .infer = impl_pow::infer,
    .forward = impl_pow::forward,
    .backward = impl_pow::backward,
    .cost = impl_pow::cost,
    .doc = "a ** b, NumPy broadcasting (f32); std::pow semantics.",
    .edges =
        "std::pow: x ** 0 = 1 (nan too), 1 ** y = 1, a negative base with a fractional exponent = "
        "nan, (-inf) ** 0.5 = +inf, (±0) ** negative = inf. Gradient for a: 0 where b = 0; for b: 0 "
        "at a = 0 when b >= 0, nan for a < 0 (as PyTorch).",
};

}  // namespace iputrain::ir
