// Builtins of sampling and statistics: candidate_sampler(labels, num_sampled, num_classes, unique =
// true), the draw of the sampled losses (stdlib/losses.ipu), named by the caller's scope path so
// that its random stream is the layer's; and the seed's statistics: histogram, histogram_update
// (the histogram added to a running one) and fixed_width_bins (n levels from min to max).
#include <fmt/format.h>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using namespace builtin_args;

Value b_candidate_sampler(CallArgs& c) {
  const std::string base = c.unique_name ? c.unique_name("sampler") : std::string("sampler");
  const std::string name = c.scope_path.empty() ? base : c.scope_path + "/" + base;
  ir::Attrs attrs{{"num_sampled", integer(c, 1, "num_sampled")},
                  {"range_max", integer(c, 2, "num_classes")},
                  {"unique", int64_t{boolean(c, 3, "unique")}},
                  {"name", name}};
  return Value::of_tensor(add(c, ir::OpKind::CandidateSampler, {tensor(c, 0, "labels")}, std::move(attrs)));
}

ir::ValueId histogram_of(CallArgs& c, size_t at) {
  return add(c, ir::OpKind::Histogram, {tensor(c, at, "inputs"), tensor(c, at + 1, "levels")},
             ir::Attrs{{"absolute", int64_t{boolean(c, at + 2, "absolute_of_input")}}});
}

Value b_histogram(CallArgs& c) { return Value::of_tensor(histogram_of(c, 0)); }

Value b_histogram_update(CallArgs& c) {
  return Value::of_tensor(add(c, ir::OpKind::Add, {tensor(c, 0, "hist"), histogram_of(c, 1)}));
}

// linspace(min(x), max(x), n_bins): n_bins levels, the first the least value and the last the
// greatest (the seed's fixed_width_bins gives levels, not edges).
Value b_fixed_width_bins(CallArgs& c) {
  const ir::ValueId x = tensor(c, 0, "inputs");
  const int64_t n = integer(c, 1, "n_bins");
  if (n < 1) {
    throw Error(ErrorKind::Semantic, fmt::format("fixed_width_bins: n_bins is {}", n), c.spans[1], "ask for 1 or more");
  }
  const ir::Attrs all{{"axes", std::vector<int64_t>{}}};
  const ir::ValueId lo = add(c, ir::OpKind::Neg, {add(c, ir::OpKind::Max, {add(c, ir::OpKind::Neg, {x})}, all)});
  const ir::ValueId hi = add(c, ir::OpKind::Max, {x}, all);
  const ir::ValueId ones = c.graph.add_constant(1, TensorType{DType::F32, {n}}, c.span);
  const ir::ValueId step =
      add(c, ir::OpKind::Cumsum, {ones}, ir::Attrs{{"axis", int64_t{0}}, {"exclusive", int64_t{1}}});
  const ir::ValueId scale =
      c.graph.add_constant(n > 1 ? 1.0 / static_cast<double>(n - 1) : 0.0, {DType::F32, {}}, c.span);
  const ir::ValueId width = add(c, ir::OpKind::Sub, {hi, lo});
  return Value::of_tensor(
      add(c, ir::OpKind::Add, {lo, add(c, ir::OpKind::Mul, {add(c, ir::OpKind::Mul, {step, scale}), width})}));
}

}  // namespace

void add_sampling_builtins(std::vector<Builtin>& table) {
  const Value no = Value::of_bool(false);
  table.push_back({"histogram", {req("inputs"), req("levels"), opt("absolute_of_input", no)}, b_histogram});
  table.push_back({"histogram_update",
                   {req("hist"), req("inputs"), req("levels"), opt("absolute_of_input", no)},
                   b_histogram_update});
  table.push_back({"fixed_width_bins", {req("inputs"), req("n_bins")}, b_fixed_width_bins});
  table.push_back({"candidate_sampler",
                   {req("labels"), req("num_sampled"), req("num_classes"), opt("unique", Value::of_bool(true))},
                   b_candidate_sampler});
}

}  // namespace iputrain::frontend
