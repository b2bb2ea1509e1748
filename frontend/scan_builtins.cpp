// Builtins over an axis that compose ops: cumsum, argsort, sort and top_k (argsort and
// take_along_axis), and scatter_add (gather's dual, from gather_grad). Flags are bools here and
// 0 / 1 attributes on the ops.
#include <fmt/format.h>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using ir::OpKind;
using namespace builtin_args;

Value b_cumsum(CallArgs& c) {
  ir::Attrs attrs{{"axis", integer(c, 1, "axis")},
                  {"exclusive", int64_t{boolean(c, 2, "exclusive")}},
                  {"reverse", int64_t{boolean(c, 3, "reverse")}}};
  return Value::of_tensor(add(c, OpKind::Cumsum, {tensor(c, 0, "x")}, std::move(attrs)));
}

ir::ValueId argsort_of(CallArgs& c, ir::ValueId x, int64_t axis, bool descending) {
  return add(c, OpKind::Argsort, {x}, ir::Attrs{{"axis", axis}, {"descending", int64_t{descending}}});
}

Value b_argsort(CallArgs& c) {
  return Value::of_tensor(argsort_of(c, tensor(c, 0, "x"), integer(c, 1, "axis"), boolean(c, 2, "descending")));
}

Value b_sort(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const int64_t axis = integer(c, 1, "axis");
  const ir::ValueId order = argsort_of(c, x, axis, boolean(c, 2, "descending"));
  return Value::of_tensor(add(c, OpKind::TakeAlongAxis, {x, order}, ir::Attrs{{"axis", axis}}));
}

// [values, indices] of the k largest along the last axis, largest first; ties go to the first
// index (a stable descending sort), and the gradient flows into the values.
Value b_top_k(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const int64_t k = integer(c, 1, "k");
  const TensorType t = c.graph.type(x);  // a copy: the nodes added below may move the graph's types
  const int64_t n = t.rank() == 0 ? 0 : t.shape.back();
  if (t.rank() == 0 || k < 1 || k > n) {
    throw Error(ErrorKind::Semantic, fmt::format("top_k: k = {} is not in [1, {}] for {}", k, n, t.str()), c.spans[1],
                "k counts elements along the last axis");
  }
  const ir::ValueId order = argsort_of(c, x, -1, true);
  std::vector<int64_t> begin(static_cast<size_t>(t.rank()), 0);
  std::vector<int64_t> end(t.shape.begin(), t.shape.end());
  end.back() = k;
  const ir::ValueId indices = add(c, OpKind::Slice, {order}, ir::Attrs{{"begin", begin}, {"end", end}});
  const ir::ValueId values = add(c, OpKind::TakeAlongAxis, {x, indices}, ir::Attrs{{"axis", int64_t{-1}}});
  return Value::of_list({Value::of_tensor(values), Value::of_tensor(indices)});
}

// target with updates added at `indices` along `axis` (duplicates add): gather's dual, as
// gather_grad (gather's gradient) plus the target; differentiable in target and updates.
Value b_scatter_add(CallArgs& c) {
  const ir::ValueId target = tensor(c, 0, "target");
  const ir::ValueId indices = tensor(c, 1, "indices");
  const ir::ValueId updates = tensor(c, 2, "updates");
  const TensorType tt = c.graph.type(target);
  const TensorType it = c.graph.type(indices);
  const TensorType ut = c.graph.type(updates);
  const int64_t axis = integer(c, 3, "axis");
  const auto a = normalize_axis(axis, tt.rank());
  if (!a) {
    throw Error(ErrorKind::Semantic, fmt::format("scatter_add: axis {} is out of range for {}", axis, tt.str()),
                c.spans[3]);
  }
  // updates must be what gather(target, indices, axis) would give.
  Shape want(tt.shape.begin(), tt.shape.begin() + *a);
  want.insert(want.end(), it.shape.begin(), it.shape.end());
  want.insert(want.end(), tt.shape.begin() + *a + 1, tt.shape.end());
  if (ut.shape != want || tt.dtype != DType::F32 || ut.dtype != DType::F32) {
    throw Error(
        ErrorKind::Semantic,
        fmt::format("scatter_add: updates {} do not fit {} at indices {} along axis {}", ut.str(), tt.str(), it.str(),
                    *a),
        c.spans[2],
        fmt::format("updates are f32{} (what gather(target, indices, axis) gives), target f32", shape_str(want)));
  }
  const ir::ValueId spread =
      add(c, OpKind::GatherGrad, {indices, updates}, ir::Attrs{{"axis", *a}, {"shape", tt.shape}});
  return Value::of_tensor(add(c, OpKind::Add, {target, spread}));
}

}  // namespace

void add_scan_builtins(std::vector<Builtin>& table) {
  const Value last = Value::of_int(-1);
  const Value no = Value::of_bool(false);
  table.push_back({"cumsum", {req("x"), opt("axis", last), opt("exclusive", no), opt("reverse", no)}, b_cumsum});
  table.push_back({"argsort", {req("x"), opt("axis", last), opt("descending", no)}, b_argsort});
  table.push_back({"sort", {req("x"), opt("axis", last), opt("descending", no)}, b_sort});
  table.push_back({"top_k", {req("x"), req("k")}, b_top_k});
  table.push_back(
      {"scatter_add", {req("target"), req("indices"), req("updates"), opt("axis", Value::of_int(0))}, b_scatter_add});
}

}  // namespace iputrain::frontend
