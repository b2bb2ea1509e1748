// The builtins of the ops a program registered in C++ (include/iputrain/custom_op.hpp): each takes
// its operands by name, then its numeric attributes as keyword arguments with the op's defaults,
// and lowers to one `custom` node naming the op.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>

#include "core/ops/custom_registry.hpp"
#include "frontend/builtins.hpp"

namespace iputrain::frontend {

namespace {

using namespace builtin_args;

Value b_custom(CallArgs& c) {
  const CustomOp* op = ir::find_custom_op(c.name);
  std::vector<ir::ValueId> operands;
  for (size_t k = 0; k < op->inputs.size(); ++k) {
    operands.push_back(tensor(c, k, op->inputs[k]));
  }
  ir::Attrs attrs{{"op", op->name}};
  size_t k = op->inputs.size();
  for (const auto& [name, def] : op->attributes) {
    const Value& v = c.args[k];
    if (!v.is_number()) {
      throw Error(ErrorKind::Semantic, fmt::format("{} must be a number, got {}", what(c, name), describe(v, c.graph)),
                  c.spans[k]);
    }
    attrs.set(name, v.as_double());
    ++k;
  }
  return Value::of_tensor(add(c, ir::OpKind::Custom, std::move(operands), std::move(attrs)));
}

}  // namespace

std::vector<const Builtin*> custom_builtins() {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<Builtin>> made;  // one per op, for the process
  std::vector<const Builtin*> out;
  const std::lock_guard lock(mu);
  for (const std::string& name : ir::custom_op_names()) {
    auto& b = made[name];
    if (!b) {
      const CustomOp& op = *ir::find_custom_op(name);
      b = std::make_unique<Builtin>();
      b->name = name;
      for (const std::string& in : op.inputs) {
        b->params.push_back(req(in));
      }
      for (const auto& [attr, def] : op.attributes) {
        b->params.push_back(opt(attr, Value::of_float(def)));
      }
      b->fn = b_custom;
    }
    out.push_back(b.get());
  }
  return out;
}

}  // namespace iputrain::frontend
