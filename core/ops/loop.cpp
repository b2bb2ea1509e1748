// loop: runs its body (Node::body, core/ops/loop_util.hpp) once per value of the counter from
// `begin` up to `end`, while the body's condition holds (checked on the initial values before the
// first iteration, then on each iteration's results), carrying values from one iteration to the
// next and collecting values per iteration. Lowered once, whatever the trip count. Gradient:
// back-propagation through time (loop_grad), which restarts each iteration from the carried values
// the loop kept and runs the body's gradient in reverse order.
#include <fmt/format.h>

#include <cstring>
#include <memory>

#include "core/ir/vjp.hpp"
#include "core/ops/loop_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_loop {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const int64_t fixed = attrs.get_int("carried") + attrs.get_int("cond", 0) + attrs.get_int("captured");
  if (static_cast<int64_t>(in.size()) != fixed) {
    throw OpError{fmt::format("loop: takes {} operands, got {}", fixed, in.size()), "the frontend makes loops"};
  }
  if (attrs.get_int("end") <= attrs.get_int("begin")) {
    throw OpError{"loop: runs no iteration", "the counter's range must not be empty", "end"};
  }
  return {DType::F32, {attrs.get_int("elements")}};
}

bool truthy(const void* data, const TensorType& t) {
  switch (t.dtype) {
    case DType::Bool:
    case DType::U8:
      return *static_cast<const uint8_t*>(data) != 0;
    case DType::I32:
      return *static_cast<const int32_t*>(data) != 0;
    default:
      return *static_cast<const float*>(data) != 0.0f;
  }
}

void forward(const KernelArgs& args) {
  const Graph& body = *args.node.body;
  const LoopShape s = loop_shape(body, args.node.attrs);
  auto* out = static_cast<std::byte*>(args.output.data);
  std::memset(out, 0, static_cast<size_t>(args.output.numel()) * 4);
  auto part = [&](size_t i) { return out + loop_part_offset(body, s, i) * 4; };
  auto bytes = [&](int64_t k) { return body.type(body.inputs[static_cast<size_t>(k)]).bytes(); };
  BodyRun run(body, args.workspace);
  int32_t counter = 0;
  run.bind(static_cast<size_t>(s.carried), &counter);
  for (int64_t k = 0; k < s.captured; ++k) {
    run.bind(static_cast<size_t>(s.carried + 1 + k), args.inputs[s.captured_input(k)].data);
  }
  for (int64_t k = 0; k < s.carried; ++k) {
    std::memcpy(part(history_part(s, k)), args.inputs[static_cast<size_t>(k)].data, bytes(k));
  }
  bool go = !s.cond ||
            truthy(args.inputs[static_cast<size_t>(s.carried)].data, *args.inputs[static_cast<size_t>(s.carried)].type);
  int64_t n = 0;
  for (int64_t t = 0; t < s.trips && go; ++t) {
    counter = static_cast<int32_t>(s.begin + t);
    for (int64_t k = 0; k < s.carried; ++k) {
      run.bind(static_cast<size_t>(k), part(history_part(s, k)) + static_cast<size_t>(t) * bytes(k));
    }
    const ExecContext it = iteration_context(args.ctx, t);
    run.run(&it);
    for (int64_t j = 0; j < s.collected; ++j) {
      const ValueId y = body.outputs[static_cast<size_t>(s.carried + j)].value;
      std::memcpy(part(collected_part(s, j)) + static_cast<size_t>(t) * body.type(y).bytes(), run.data(y),
                  body.type(y).bytes());
    }
    for (int64_t k = 0; k < s.carried; ++k) {
      std::byte* next =
          t + 1 < s.trips ? part(history_part(s, k)) + static_cast<size_t>(t + 1) * bytes(k) : part(final_part(s, k));
      std::memcpy(next, run.data(body.outputs[static_cast<size_t>(k)].value), bytes(k));
    }
    n = t + 1;
    if (s.cond) {
      const ValueId c = body.outputs.back().value;
      go = truthy(run.data(c), body.type(c));
    }
  }
  for (int64_t k = 0; k < s.carried && n < s.trips; ++k) {
    std::memcpy(part(final_part(s, k)), part(history_part(s, k)) + static_cast<size_t>(n) * bytes(k), bytes(k));
  }
  const auto count = static_cast<int32_t>(n);
  std::memcpy(part(count_part(s)), &count, sizeof count);
}

// The captured value k is read by one index_at at the counter, within its range: its gradient is
// then that index_at's, written row by row (loop_grad's `scan`), not a full-size sum per iteration.
ValueId scanned_read(const Graph& body, const LoopShape& s, int64_t k) {
  const ValueId arg = body.inputs[static_cast<size_t>(s.carried + 1 + k)];
  const ValueId counter = body.inputs[static_cast<size_t>(s.carried)];
  ValueId read = kNoValue;
  for (ValueId id = 0; id < body.size(); ++id) {
    const Node& n = body.node(id);
    for (ValueId in : n.inputs) {
      if (in != arg) {
        continue;
      }
      if (read != kNoValue || n.op != OpKind::IndexAt || n.inputs[0] != arg || n.inputs[1] != counter) {
        return kNoValue;
      }
      read = id;
    }
  }
  if (read == kNoValue) {
    return kNoValue;
  }
  const int64_t size = body.type(arg).shape[static_cast<size_t>(body.node(read).attrs.get_int("axis"))];
  return s.begin >= 0 && s.begin + s.trips <= size ? read : kNoValue;
}

std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const LoopShape s = loop_shape(*n.body, n.attrs);
  auto grad = std::make_shared<Graph>(*n.body);
  std::vector<VjpSeed> seeds;
  const auto base = static_cast<int64_t>(n.body->inputs.size());
  for (int64_t k = 0; k < s.carried + s.collected; ++k) {
    const ValueId of = n.body->outputs[static_cast<size_t>(k)].value;
    const ValueId arg = grad->add_loop_arg(base + k, TensorType{DType::F32, grad->type(of).shape});
    if (grad->type(of).dtype == DType::F32) {
      seeds.push_back({of, arg});
    }
  }
  // The gradients asked for: the carried values', and the captured f32 values' but constants'.
  std::vector<ValueId> wrt;
  std::vector<int64_t> scan;
  for (int64_t k = 0; k < s.carried; ++k) {
    wrt.push_back(n.body->inputs[static_cast<size_t>(k)]);
  }
  std::vector<bool> asked;
  for (int64_t k = 0; k < s.captured; ++k) {
    const Node& outer = g.node(n.inputs[s.captured_input(k)]);
    asked.push_back(outer.type.dtype == DType::F32 && !op_has(outer.op, op_flags::constant));
    const ValueId read = scanned_read(*n.body, s, k);
    scan.push_back(read != kNoValue ? n.body->node(read).attrs.get_int("axis") : -1);
    if (asked.back()) {
      wrt.push_back(read != kNoValue ? read : n.body->inputs[static_cast<size_t>(s.carried + 1 + k)]);
    }
  }
  const std::vector<ValueId> d = vjp(*grad, seeds, wrt);
  size_t next = 0;
  for (int64_t k = 0; k < s.carried; ++k) {
    grad->outputs.push_back({"d", d[next++], {}});
  }
  for (int64_t k = 0; k < s.captured; ++k) {
    grad->outputs.push_back({"d", asked[static_cast<size_t>(k)] ? d[next++] : kNoValue, {}});
  }
  std::vector<ValueId> inputs{id, dy};
  std::vector<const TensorType*> types;
  for (ValueId in : n.inputs) {
    inputs.push_back(in);
    types.push_back(&g.type(in));
  }
  const Packing p = loop_grad_packing(types);
  Attrs attrs = n.attrs;
  attrs.set("elements", p.elements);
  attrs.set("scan", scan);
  const ValueId lg = g.add(OpKind::LoopGrad, std::move(inputs), std::move(attrs));
  g.node(lg).body = std::move(grad);
  std::vector<ValueId> dx;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const bool captured = i >= s.captured_input(0);
    const bool flows = g.type(n.inputs[i]).dtype == DType::F32 && (!s.cond || i != static_cast<size_t>(s.carried)) &&
                       (!captured || asked[i - s.captured_input(0)]);
    dx.push_back(flows ? g.add(OpKind::LoopPart, {lg},
                               Attrs{{"offset", p.parts[i].offset},
                                     {"dtype", std::string("f32")},
                                     {"shape", p.parts[i].type.shape}})
                       : kNoValue);
  }
  return dx;
}

Cost body_cost(const Graph& body, int64_t trips) {
  Cost c;
  for (const Node& n : body.nodes()) {
    if (const auto f = op_def(n.op).cost) {
      const Cost one = f(body, n);
      c.flops += one.flops * static_cast<double>(trips);
      c.bytes_in += one.bytes_in * static_cast<double>(trips);
      c.bytes_out += one.bytes_out * static_cast<double>(trips);
    }
  }
  return c;
}

Cost cost(const Graph& g, const Node& node) {
  return body_cost(*node.body, node.attrs.get_int("end") - node.attrs.get_int("begin"));
}

size_t workspace(const Graph& g, const Node& node) { return BodyRun::scratch_bytes(*node.body); }
size_t temporaries(const Graph& g, const Node& node) { return body_values_bytes(*node.body); }

}  // namespace impl_loop
}  // namespace

Cost loop_body_cost(const Graph& body, int64_t trips) { return impl_loop::body_cost(body, trips); }

const OpDef kLoopOp{
    .kind = OpKind::Loop,
    .name = "loop",
    .arity = -1,
    .infer = impl_loop::infer,
    .forward = impl_loop::forward,
    .backward = impl_loop::backward,
    .cost = impl_loop::cost,
    .doc =
        "loop(initial..., [cond], captured...; begin, end, counts): the `loop` statement; runs its body "
        "graph once per counter value while its condition holds, packing the final carried values, the "
        "collected stacks, the carried values of every iteration and the trip count.",
    .workspace = impl_loop::workspace,
    .attrs = kLoopAttrs,
    .edges =
        "the body's ops keep their own special values; iterations past the last one run leave zeros in "
        "the collected stacks.",
    .temporaries = impl_loop::temporaries,
};

}  // namespace iputrain::ir
