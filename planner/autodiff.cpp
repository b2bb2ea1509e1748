#include "planner/autodiff.hpp"

#include <map>
#include <tuple>

#include "core/ops/slice_util.hpp"
#include "iputrain/error.hpp"

namespace iputrain::planner {

using ir::kNoValue;
using ir::ValueId;

namespace {

// A gradient being summed. Contributions that are slice_grads of one axis (a value read in
// slices: a serialized matmul's weight, an embedding table read slice by slice, a sequence cut
// into pieces) are kept as slice-sized sums, one per window, while the windows are identical or
// disjoint; the sum becomes one tensor (the windows joined, or zero-padded and added) when another
// kind of contribution arrives or the gradient is read. Each element still adds its contributions
// in the order they came (the padding zeros add exactly), without a full-size tensor per slice.
struct Sum {
  ValueId total = kNoValue;
  int64_t axis = -1;
  struct Window {
    int64_t size = 0;
    ValueId sum = kNoValue;
    ValueId first = kNoValue;  // the first slice_grad of this window, to pad the sum like it
  };
  std::map<int64_t, Window> windows;  // by begin along `axis`
};

// The window a slice_grad writes when it writes a contiguous stretch of one axis and the whole of
// every other: (axis, begin, size), or axis -1.
std::tuple<int64_t, int64_t, int64_t> window_of(const ir::Graph& g, ValueId v) {
  const ir::Node& n = g.node(v);
  if (n.op != ir::OpKind::SliceGrad) {
    return {-1, 0, 0};
  }
  const Shape& shape = n.type.shape;
  const ir::SliceSpec spec = ir::slice_spec(shape, n.attrs);
  int64_t axis = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (spec.begin[d] != 0 || spec.stride[d] != 1 || spec.size[d] != shape[d]) {
      if (axis >= 0 || spec.stride[d] != 1) {
        return {-1, 0, 0};
      }
      axis = static_cast<int64_t>(d);
    }
  }
  return axis < 0 ? std::tuple<int64_t, int64_t, int64_t>{-1, 0, 0}
                  : std::tuple<int64_t, int64_t, int64_t>{axis, spec.begin[static_cast<size_t>(axis)],
                                                          spec.size[static_cast<size_t>(axis)]};
}

// The windows made one tensor and added to the total.
void settle(ir::Graph& g, Sum& s) {
  if (s.windows.empty()) {
    return;
  }
  const Shape shape = g.type(s.windows.begin()->second.first).shape;
  int64_t covered = 0;
  for (const auto& [begin, w] : s.windows) {
    covered = begin == covered ? covered + w.size : -1;
  }
  ValueId joined = kNoValue;
  if (s.windows.size() > 1 && covered == shape[static_cast<size_t>(s.axis)]) {
    std::vector<ValueId> pieces;
    for (const auto& [begin, w] : s.windows) {
      pieces.push_back(w.sum);
    }
    joined = g.add(ir::OpKind::Concat, pieces, ir::Attrs{{"axis", s.axis}});
  } else {
    for (const auto& [begin, w] : s.windows) {
      const ValueId padded =
          w.sum == g.node(w.first).inputs[0] ? w.first : g.add(ir::OpKind::SliceGrad, {w.sum}, g.node(w.first).attrs);
      joined = joined == kNoValue ? padded : g.add(ir::OpKind::Add, {joined, padded});
    }
  }
  s.windows.clear();
  s.axis = -1;
  s.total = s.total == kNoValue ? joined : g.add(ir::OpKind::Add, {s.total, joined});
}

// Adds `dx` to `s`; new nodes go to the graph's cursor.
void add_to(ir::Graph& g, Sum& s, ValueId dx) {
  const auto [axis, begin, size] = window_of(g, dx);
  if (axis >= 0 && s.total == kNoValue && (s.windows.empty() || axis == s.axis)) {
    bool fits = true;  // identical to a window, or apart from all
    for (const auto& [b, w] : s.windows) {
      const bool same = b == begin && w.size == size;
      const bool apart = b + w.size <= begin || begin + size <= b;
      fits = fits && (same || apart);
    }
    if (fits) {
      s.axis = axis;
      const ValueId dy = g.node(dx).inputs[0];
      auto [it, fresh] = s.windows.try_emplace(begin, Sum::Window{size, dy, dx});
      if (!fresh) {
        it->second.sum = g.add(ir::OpKind::Add, {it->second.sum, dy});
      }
      return;
    }
  }
  settle(g, s);
  s.total = s.total == kNoValue ? dx : g.add(ir::OpKind::Add, {s.total, dx});
}

// The finished sum of `s` (kNoValue if nothing was added).
ValueId total_of(ir::Graph& g, Sum& s) {
  settle(g, s);
  return s.total;
}

}  // namespace

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

  std::vector<Sum> grad(static_cast<size_t>(n));
  // Parameters' gradients by the model stage of the node whose backward contributes them.
  std::vector<int32_t> param_index(static_cast<size_t>(n), -1);
  for (size_t k = 0; k < g.params.size(); ++k) {
    param_index[static_cast<size_t>(g.params[k])] = static_cast<int32_t>(k);
  }
  std::vector<std::map<int32_t, Sum>> parts(g.params.size());
  {
    const ir::Node& loss = g.node(g.loss);
    g.set_cursor(loss.stage, ir::Phase::Backward);
    g.set_default_span(loss.span);
    g.loss_seed = g.add_constant(1.0, loss.type);
    grad[static_cast<size_t>(g.loss)].total = g.loss_seed;
  }
  for (ValueId id = g.loss; id >= 0; --id) {
    Sum& sum = grad[static_cast<size_t>(id)];
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
      Sum& acc = k >= 0 ? parts[static_cast<size_t>(k)][model_stage] : grad[static_cast<size_t>(in)];
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
