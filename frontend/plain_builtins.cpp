// The plain builtins: one per op that core/ops/op_list.hpp marks `builtin`, generated from its
// OpDef. Parameters are the op's inputs, then its attributes as keyword arguments with the specs'
// defaults. Arguments are only converted to the attribute's type here; Graph::add checks their
// values (one check, in core) and points a bad one at where it was written.
#include <utility>

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

template <size_t K>
Value plain(CallArgs& c) {
  constexpr auto kind = static_cast<OpKind>(K);
  const ir::OpDef& def = ir::op_def(kind);
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
