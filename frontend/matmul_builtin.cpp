// matmul and `@`: a[..., m, k] @ b[..., k, n] with NumPy's matmul rules for the leading (batch)
// dimensions: they broadcast against each other, and a 2-D operand is shared by every batch
// entry. The op itself takes a 2-D right operand or equal batch dimensions, so a broadcast operand
// is expanded first with broadcast_to (whose gradient sums the copies back).
#include <fmt/format.h>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// NumPy broadcasting of two batch shapes, or nothing when a pair of dimensions differs and
// neither is 1.
std::optional<Shape> broadcast_batch(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    if (da != db && da != 1 && db != 1) {
      return std::nullopt;
    }
    out[out.size() - 1 - i] = da == 1 ? db : da;
  }
  return out;
}

ir::ValueId expand(ir::Graph& g, ir::ValueId x, const Shape& batch, const SourceSpan& span) {
  const Shape& s = g.type(x).shape;
  if (batch_of(s) == batch) {
    return x;
  }
  Shape target = batch;
  target.insert(target.end(), s.end() - 2, s.end());
  return g.add(ir::OpKind::BroadcastTo, {x}, ir::Attrs{{"shape", target}}, span);
}

}  // namespace

ir::ValueId add_matmul(ir::Graph& g, ir::ValueId a, ir::ValueId b, bool ta, bool tb, const SourceSpan& span) {
  ir::Attrs attrs;
  if (ta) {
    attrs.set("transpose_a", int64_t{1});
  }
  if (tb) {
    attrs.set("transpose_b", int64_t{1});
  }
  const TensorType at = g.type(a);
  const TensorType bt = g.type(b);
  // A rank below 2 is left to the op, whose error says what to do.
  const bool shared_b = bt.rank() == 2 && !(ta && at.rank() > 2);
  if (at.rank() >= 2 && bt.rank() >= 2 && !shared_b) {
    const auto batch = broadcast_batch(batch_of(at.shape), batch_of(bt.shape));
    if (!batch) {
      throw Error(ErrorKind::Semantic,
                  fmt::format("the batch dimensions of {} @ {} do not broadcast", at.str(), bt.str()), span,
                  "leading dimensions must be equal or 1 (NumPy's matmul rules)");
    }
    a = expand(g, a, *batch, span);
    b = expand(g, b, *batch, span);
  }
  return g.add(ir::OpKind::MatMul, {a, b}, std::move(attrs), span);
}

namespace {

Value b_matmul(CallArgs& c) {
  using namespace builtin_args;
  return Value::of_tensor(add_matmul(c.graph, tensor(c, 0, "a"), tensor(c, 1, "b"), boolean(c, 2, "transpose_a"),
                                     boolean(c, 3, "transpose_b"), c.span));
}

}  // namespace

void add_matmul_builtin(std::vector<Builtin>& table) {
  table.push_back({"matmul",
                   {{"a", true, {}},
                    {"b", true, {}},
                    {"transpose_a", false, Value::of_bool(false)},
                    {"transpose_b", false, Value::of_bool(false)}},
                   b_matmul});
}

}  // namespace iputrain::frontend
