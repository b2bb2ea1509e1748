#include "planner/autodiff.hpp"

#include <map>

#include "core/ir/grad_sum.hpp"
#include "iputrain/error.hpp"

namespace iputrain::planner {

using ir::kNoValue;
using ir::ValueId;

std::vector<GradParts> differentiate(ir::Graph& g) {
  if (g.loss == kNoValue) {
    throw Error(ErrorKind::Plan, "the model has no `minimize` objective, so it cannot be trained",
                {}, "add `minimize LOSS` to the model, or use `iputrain eval`");
  }
  const int32_t n = g.size();
  // Only values that depend on a parameter need gradients; everything else (inputs, labels,
  // metrics) is skipped, which keeps e.g. the input-gradient matmul of the first layer out.
  // Non-trainable parameters (moving statistics) get none: the optimizer never updates them.
  std::vector<bool> needs(static_cast<size_t>(n), false);
  for (ValueId p : g.params) {
    needs[static_cast<size_t>(p)] = ir::trainable(g.node(p));
  }
  for (ValueId id = 0; id < n; ++id) {
    const ir::Node& node = g.node(id);
    if (!is_float(node.type.dtype) || ir::op_def(node.op).backward == nullptr) {
      continue;
    }
    for (ValueId in : node.inputs) {
      if (needs[static_cast<size_t>(in)]) {
        needs[static_cast<size_t>(id)] = true;
        break;
      }
    }
  }

  std::vector<ir::Sum> grad(static_cast<size_t>(n));
  // Parameters' gradients by the model stage of the node whose backward contributes them.
  std::vector<int32_t> param_index(static_cast<size_t>(n), -1);
  for (size_t k = 0; k < g.params.size(); ++k) {
    param_index[static_cast<size_t>(g.params[k])] = static_cast<int32_t>(k);
  }
  std::vector<std::map<int32_t, ir::Sum>> parts(g.params.size());
  {
    const ir::Node& loss = g.node(g.loss);
    g.set_cursor(loss.stage, ir::Phase::Backward);
    g.set_default_span(loss.span);
    g.loss_seed = g.add_constant(1.0, loss.type);
    grad[static_cast<size_t>(g.loss)].total = g.loss_seed;
  }
  for (ValueId id = g.loss; id >= 0; --id) {
    ir::Sum& sum = grad[static_cast<size_t>(id)];
    if ((sum.total == kNoValue && sum.windows.empty()) || !needs[static_cast<size_t>(id)]) {
      continue;
    }
    const ir::Node node = g.node(id);  // copy: g grows while we differentiate
    const ir::OpDef& def = ir::op_def(node.op);
    if (def.backward == nullptr) {
      continue;
    }
    g.set_default_span(node.span);
    g.set_cursor(node.stage, ir::Phase::Backward);  // the stage that made the value sums its gradient
    const ValueId dy = total_of(g, sum);
    std::vector<ValueId> dx = def.backward(g, id, dy);
    for (size_t i = 0; i < node.inputs.size() && i < dx.size(); ++i) {
      const ValueId in = node.inputs[i];
      if (dx[i] == kNoValue || !needs[static_cast<size_t>(in)]) {
        continue;
      }
      const int32_t k = param_index[static_cast<size_t>(in)];
      const int32_t model_stage = node.model_stage >= 0 ? node.model_stage : node.stage;
      ir::Sum& acc = k >= 0 ? parts[static_cast<size_t>(k)][model_stage] : grad[static_cast<size_t>(in)];
      // Contributions from several users are summed in the stage that made the value: users may
      // be concurrent stages (a `parallel` block), which cannot wait for each other. A parameter's
      // part is summed where its contributions are made when they all come from one stage.
      const ValueId first = acc.total != kNoValue ? acc.total
                            : acc.windows.empty() ? kNoValue
                                                  : acc.windows.begin()->second.sum;
      const bool here = k >= 0 && (first == kNoValue || g.node(first).stage == node.stage);
      g.set_cursor(here ? node.stage : g.node(in).stage, ir::Phase::Backward);
      add_to(g, acc, dx[i]);
      g.set_cursor(node.stage, ir::Phase::Backward);
    }
  }
  g.set_default_span({});

  std::vector<GradParts> out(g.params.size());
  for (size_t k = 0; k < g.params.size(); ++k) {
    for (auto& [stage, part] : parts[k]) {
      const ValueId some = part.total != kNoValue ? part.total : part.windows.begin()->second.sum;
      g.set_cursor(g.node(some).stage, ir::Phase::Backward);
      g.set_default_span(g.node(some).span);
      out[k].push_back(total_of(g, part));
    }
  }
  g.set_default_span({});
  return out;
}

}  // namespace iputrain::planner
