#include "core/ops/custom_registry.hpp"

#include <fmt/format.h>

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "iputrain/error.hpp"

namespace iputrain {

double CustomAttributes::get(const std::string& name) const {
  const auto& attrs = *static_cast<const ir::Attrs*>(node_);
  if (attrs.has(name)) {
    return attrs.get_float(name);
  }
  const auto it = defaults_->find(name);
  if (it == defaults_->end()) {
    throw std::out_of_range("the op has no attribute '" + name + "'");
  }
  return it->second;
}

}  // namespace iputrain

namespace iputrain::ir {

namespace {

struct Registry {
  std::shared_mutex mu;
  std::map<std::string, std::unique_ptr<CustomOp>, std::less<>> ops;
  std::vector<std::string> order;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

const CustomOp* find_custom_op(std::string_view name) {
  Registry& r = registry();
  std::shared_lock lock(r.mu);
  const auto it = r.ops.find(name);
  return it == r.ops.end() ? nullptr : it->second.get();
}

void add_custom_op(CustomOp op) {
  Registry& r = registry();
  std::unique_lock lock(r.mu);
  if (r.ops.count(op.name) > 0) {
    throw Error(ErrorKind::Usage, fmt::format("an op named '{}' is registered already", op.name), {},
                "give each op its own name");
  }
  const std::string name = op.name;
  r.ops.emplace(name, std::make_unique<CustomOp>(std::move(op)));
  r.order.push_back(name);
}

std::vector<std::string> custom_op_names() {
  Registry& r = registry();
  std::shared_lock lock(r.mu);
  return r.order;
}

}  // namespace iputrain::ir
