#include "core/ir/vjp.hpp"

#include <algorithm>

#include "core/ir/grad_sum.hpp"

namespace iputrain::ir {

std::vector<ValueId> vjp(Graph& g, std::span<const VjpSeed> seeds, std::span<const ValueId> wrt) {
  const int32_t n = g.size();
  // Values that depend on a `wrt` value through differentiable float ops.
  std::vector<bool> needs(static_cast<size_t>(n), false);
  std::vector<bool> target(static_cast<size_t>(n), false);
  for (ValueId w : wrt) {
    needs[static_cast<size_t>(w)] = target[static_cast<size_t>(w)] = true;
  }
  for (ValueId id = 0; id < n; ++id) {
    const Node& node = g.node(id);
    if (target[static_cast<size_t>(id)] || !is_float(node.type.dtype) || op_def(node.op).backward == nullptr) {
      continue;
    }
    needs[static_cast<size_t>(id)] =
        std::any_of(node.inputs.begin(), node.inputs.end(), [&](ValueId in) { return needs[static_cast<size_t>(in)]; });
  }
  std::vector<Sum> grad(static_cast<size_t>(n));
  for (const VjpSeed& s : seeds) {
    if (s.grad != kNoValue && needs[static_cast<size_t>(s.of)]) {
      add_to(g, grad[static_cast<size_t>(s.of)], s.grad);
    }
  }
  for (ValueId id = n - 1; id >= 0; --id) {
    Sum& sum = grad[static_cast<size_t>(id)];
    if ((sum.total == kNoValue && sum.windows.empty()) || !needs[static_cast<size_t>(id)] ||
        target[static_cast<size_t>(id)]) {
      continue;
    }
    const Node node = g.node(id);  // copy: g grows below
    g.set_default_span(node.span);
    const ValueId dy = total_of(g, sum);
    const std::vector<ValueId> dx = op_def(node.op).backward(g, id, dy);
    for (size_t i = 0; i < node.inputs.size() && i < dx.size(); ++i) {
      if (dx[i] != kNoValue && needs[static_cast<size_t>(node.inputs[i])]) {
        add_to(g, grad[static_cast<size_t>(node.inputs[i])], dx[i]);
      }
    }
  }
  g.set_default_span({});
  std::vector<ValueId> out;
  for (ValueId w : wrt) {
    out.push_back(total_of(g, grad[static_cast<size_t>(w)]));
  }
  return out;
}

}  // namespace iputrain::ir
