// The plain builtins: one per op that core/ops/op_list.hpp marks `builtin`, generated from its
// OpDef. Parameters are the op's inputs, then its attributes as keyword arguments with the specs'
// defaults. Arguments are only converted to the attribute's type here; Graph::add checks their
// values (one check, in core) and points a bad one at where it was written.
#include <cmath>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using ir::OpKind;

ir::AttrValue attr_value(CallArgs& c, size_t k, const ir::AttrSpec& spec) {
  const std::string name(spec.name);
  switch (spec.type) {
    case ir::AttrType::Int:
      return builtin_args::integer(c, k, name);
    case ir::AttrType::Float:
      return expect_number(c.args[k], c.graph, c.spans[k], builtin_args::what(c, name));
    case ir::AttrType::String:
      break;
  }
  return expect_string(c.args[k], c.graph, c.spans[k], builtin_args::what(c, name));
}

// The math builtins also work on compile-time numbers (`log(10000.0)` is a float), as Python's
// math module: floor, ceil and round give ints (round halves to even, as Python's round).
std::optional<Value> compile_time_math(std::string_view name, const Value& v, CallArgs& c) {
  if (!v.is_number()) {
    return std::nullopt;
  }
  const double x = v.as_double();
  static const std::map<std::string_view, double (*)(double)> kFloat = {
      {"exp", [](double a) { return std::exp(a); }},   {"log", [](double a) { return std::log(a); }},
      {"sqrt", [](double a) { return std::sqrt(a); }}, {"sin", [](double a) { return std::sin(a); }},
      {"cos", [](double a) { return std::cos(a); }},   {"tanh", [](double a) { return std::tanh(a); }},
  };
  static const std::map<std::string_view, double (*)(double)> kInt = {
      {"floor", [](double a) { return std::floor(a); }},
      {"ceil", [](double a) { return std::ceil(a); }},
      {"round", [](double a) { return std::nearbyint(a); }},
  };
  if (const auto f = kFloat.find(name); f != kFloat.end()) {
    const double r = f->second(x);
    if (std::isnan(r)) {
      throw Error(ErrorKind::Semantic, fmt::format("{}({}) is undefined", name, x), c.spans[0],
                  "compile-time math takes arguments in the function's domain (log and sqrt need x >= 0)");
    }
    return Value::of_float(r);
  }
  if (const auto f = kInt.find(name); f != kInt.end()) {
    const double r = f->second(x);
    if (!std::isfinite(r) || std::abs(r) > 9.0e18) {
      throw Error(ErrorKind::Semantic, fmt::format("{}({}) is not an integer that fits", name, x), c.spans[0],
                  "compile-time floor, ceil and round give ints");
    }
    return Value::of_int(static_cast<int64_t>(r));
  }
  return std::nullopt;
}

template <size_t K>
Value plain(CallArgs& c) {
  constexpr auto kind = static_cast<OpKind>(K);
  const ir::OpDef& def = ir::op_def(kind);
  if (def.inputs.size() == 1) {
    if (auto v = compile_time_math(def.name, c.args[0], c)) {
      return *v;
    }
  }
  std::vector<ir::ValueId> inputs;
  size_t k = 0;
  for (; k < def.inputs.size(); ++k) {
    inputs.push_back(builtin_args::tensor(c, k, std::string(def.inputs[k])));
  }
  ir::Attrs attrs;
  std::vector<SourceSpan> spans;
  for (const ir::AttrSpec& spec : def.attrs) {
    attrs.set(std::string(spec.name), attr_value(c, k, spec));
    spans.push_back(c.spans[k]);
    ++k;
  }
  return Value::of_tensor(c.graph.add(kind, std::move(inputs), std::move(attrs), c.span, spans));
}

Value default_of(const ir::AttrSpec& spec) {
  switch (spec.type) {
    case ir::AttrType::Int:
      return Value::of_int(static_cast<int64_t>(spec.number));
    case ir::AttrType::Float:
      return Value::of_float(spec.number);
    case ir::AttrType::String:
      break;
  }
  return Value::of_string(std::string(spec.text));
}

template <size_t... K>
void add_all(std::vector<Builtin>& table, std::index_sequence<K...>) {
  static constexpr Value (*kFns[])(CallArgs&) = {&plain<K>...};
  for (size_t k = 0; k < sizeof...(K); ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (!ir::is_plain_builtin(kind)) {
      continue;
    }
    const ir::OpDef& def = ir::op_def(kind);
    std::vector<BuiltinParam> params;
    for (std::string_view input : def.inputs) {
      params.push_back({std::string(input), true, {}});
    }
    for (const ir::AttrSpec& spec : def.attrs) {
      params.push_back({std::string(spec.name), spec.required, spec.required ? Value{} : default_of(spec)});
    }
    table.push_back({std::string(def.name), std::move(params), kFns[k]});
  }
}

}  // namespace

void add_plain_builtins(std::vector<Builtin>& table) {
  add_all(table, std::make_index_sequence<static_cast<size_t>(OpKind::Count)>());
}

}  // namespace iputrain::frontend
