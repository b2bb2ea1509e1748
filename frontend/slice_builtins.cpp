// Builtins that slice at offsets computed at run time: dynamic_slice (its sizes a compile-time
// list), sequence_slice and the seed's pack / unpack forms of it, and scatter_update, all lowered
// to the dynamic_slice and sequence_slice ops (dynamic_update_slice is a plain builtin).
#include <fmt/format.h>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using ir::OpKind;
using namespace builtin_args;

std::vector<int64_t> int_list(CallArgs& c, size_t k, const std::string& param) {
  const Value& v = c.args[k];
  std::vector<int64_t> out;
  bool ok = v.kind == Value::Kind::List;
  for (size_t i = 0; ok && i < v.list.size(); ++i) {
    ok = v.list[i].kind == Value::Kind::Int;
    out.push_back(ok ? v.list[i].i : 0);
  }
  if (!ok) {
    throw Error(ErrorKind::Semantic,
                fmt::format("{} must be a list of ints, got {}", what(c, param), describe(v, c.graph)), c.spans[k]);
  }
  return out;
}

Value b_dynamic_slice(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "x");
  const ir::ValueId offsets = tensor(c, 1, "offsets");
  return Value::of_tensor(add(c, OpKind::DynamicSlice, {x, offsets}, ir::Attrs{{"sizes", int_list(c, 2, "sizes")}}));
}

// Where each slice starts in a contiguous run of them: the exclusive running sum of the counts.
ir::ValueId starts_of(CallArgs& c, ir::ValueId counts) {
  return add(c, OpKind::Cumsum, {counts}, ir::Attrs{{"axis", int64_t{0}}, {"exclusive", int64_t{1}}});
}

Value slice_value(CallArgs& c, std::vector<ir::ValueId> operands, bool zero_unused) {
  return Value::of_tensor(
      add(c, OpKind::SequenceSlice, std::move(operands), ir::Attrs{{"zero_unused", int64_t{zero_unused}}}));
}

Value b_sequence_slice(CallArgs& c) {
  return slice_value(c,
                     {tensor(c, 0, "dst"), tensor(c, 1, "src"), tensor(c, 2, "num_elems"), tensor(c, 3, "src_offsets"),
                      tensor(c, 4, "dst_offsets")},
                     boolean(c, 5, "zero_unused"));
}

// The seed's pack: src's rows are the slices one after the other.
Value b_sequence_slice_pack(CallArgs& c) {
  const ir::ValueId counts = tensor(c, 2, "num_elems");
  return slice_value(
      c, {tensor(c, 0, "dst"), tensor(c, 1, "src"), counts, starts_of(c, counts), tensor(c, 3, "dst_offsets")},
      boolean(c, 4, "zero_unused"));
}

// The seed's unpack: the slices gathered one after the other into `total_elements` rows.
Value b_sequence_slice_unpack(CallArgs& c) {
  const ir::ValueId src = tensor(c, 0, "src");
  const ir::ValueId counts = tensor(c, 1, "num_elems");
  TensorType t = c.graph.type(src);  // a copy: the nodes added below may move the graph's types
  const int64_t total = integer(c, 3, "total_elements");
  if (t.rank() == 0 || total < 0) {
    throw Error(ErrorKind::Semantic, fmt::format("sequence_slice_unpack: {} rows of {} cannot be made", total, t.str()),
                c.span, "src has rows along its first dimension; total_elements is >= 0");
  }
  t.shape[0] = total;
  const ir::ValueId dst = c.graph.add_constant(0, t, c.span);
  return slice_value(c, {dst, src, counts, tensor(c, 2, "src_offsets"), starts_of(c, counts)}, true);
}

// Rows of target replaced by the rows of updates at indices (the last one wins where they repeat).
Value b_scatter_update(CallArgs& c) {
  const ir::ValueId target = tensor(c, 0, "target");
  const ir::ValueId indices = tensor(c, 1, "indices");
  const TensorType it = c.graph.type(indices);
  if (it.dtype != DType::I32 || it.rank() != 1) {
    throw Error(ErrorKind::Semantic, fmt::format("scatter_update: indices must be i32[k], got {}", it.str()),
                c.spans[1], "one row index of target per row of updates");
  }
  const ir::ValueId ones = c.graph.add_constant(1, it, c.span);
  return slice_value(c, {target, tensor(c, 2, "updates"), ones, starts_of(c, ones), indices}, false);
}

}  // namespace

void add_slice_builtins(std::vector<Builtin>& table) {
  const Value no = Value::of_bool(false);
  table.push_back({"dynamic_slice", {req("x"), req("offsets"), req("sizes")}, b_dynamic_slice});
  table.push_back(
      {"sequence_slice",
       {req("dst"), req("src"), req("num_elems"), req("src_offsets"), req("dst_offsets"), opt("zero_unused", no)},
       b_sequence_slice});
  table.push_back({"sequence_slice_pack",
                   {req("dst"), req("src"), req("num_elems"), req("dst_offsets"), opt("zero_unused", no)},
                   b_sequence_slice_pack});
  table.push_back({"sequence_slice_unpack",
                   {req("src"), req("num_elems"), req("src_offsets"), req("total_elements")},
                   b_sequence_slice_unpack});
  table.push_back({"scatter_update", {req("target"), req("indices"), req("updates")}, b_scatter_update});
}

}  // namespace iputrain::frontend
