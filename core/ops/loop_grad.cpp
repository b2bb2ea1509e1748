// loop_grad: back-propagation through time for a loop. Reads (the loop's packed result, its
// gradient, the loop's operands) and runs its body (the loop's body followed by that body's
// gradient, core/ir/vjp.hpp) once per iteration the loop ran, last first: each run restarts from the
// carried values the loop kept for that iteration, recomputes the body and takes the gradient
// flowing into the next values (the final values' gradient first, then each iteration's result)
// and into that iteration's collected values. The gradients of the values the body reads are summed
// over the iterations in that order (the first one copied, as the model's reverse pass adds a
// value's contributions), except those read only at the counter (attribute `scan`: the axis), whose
// rows are written where they were read. Writes one f32 part per loop operand (loop_util.hpp).
#include <fmt/format.h>

#include <cstring>

#include "core/half_round.hpp"
#include "core/ops/loop_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_loop_grad {

TensorType infer(std::span<const TensorType* const> in, const Attrs& attrs) {
  const int64_t fixed = 2 + attrs.get_int("carried") + attrs.get_int("cond", 0) + attrs.get_int("captured");
  if (static_cast<int64_t>(in.size()) != fixed) {
    throw OpError{fmt::format("loop_grad: takes {} operands, got {}", fixed, in.size()), "the loop op makes them"};
  }
  return {DType::F32, {attrs.get_int("elements")}};
}

size_t state_bytes(const Graph& body, const LoopShape& s) {
  size_t bytes = 0;
  for (int64_t k = 0; k < s.carried; ++k) {
    bytes += packed_aligned(body.type(body.inputs[static_cast<size_t>(k)]).bytes());
  }
  return bytes;
}

// Writes g (x's shape without `axis`) at row `row` of `axis` of out (x's shape).
void write_row(float* out, const float* g, const Shape& shape, size_t axis, int64_t row) {
  int64_t outer = 1;
  for (size_t d = 0; d < axis; ++d) {
    outer *= shape[d];
  }
  const int64_t n = shape[axis];
  int64_t inner = 1;
  for (size_t d = axis + 1; d < shape.size(); ++d) {
    inner *= shape[d];
  }
  for (int64_t o = 0; o < outer; ++o) {
    std::memcpy(out + (o * n + row) * inner, g + o * inner, static_cast<size_t>(inner) * sizeof(float));
  }
}

// acc = g for the first iteration, acc + g after, each partial sum rounded to the half compute type
// (as the unrolled loop's adds are) under `it.rounding`, with its own stochastic key.
void accumulate(float* acc, const float* g, int64_t n, bool first, const ExecContext& it, int64_t key_value) {
  if (first) {
    std::memcpy(acc, g, static_cast<size_t>(n) * sizeof(float));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    acc[i] += g[i];
  }
  if (it.rounding != nullptr) {
    const uint64_t key = it.rounding->stochastic ? rounding_key(it.seed, key_value, it.step) : 0;
    const int64_t over = round_in_place(acc, n, *it.rounding, key);
    if (it.overflows != nullptr) {
      *it.overflows += over;
    }
  }
}

// A gradient on a kept carried value itself (the packed history, which no model reads but which is
// a function of the operands all the same), added where it is not zero: a zero leaves the bits of
// the other contributions alone.
void add_nonzero(float* acc, const float* h, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (h[i] != 0.0f) {
      acc[i] += h[i];
    }
  }
}

void forward(const KernelArgs& args) {
  const Graph& body = *args.node.body;
  const LoopShape s = loop_shape(body, args.node.attrs);
  const std::span<const Tensor> operands = args.inputs.subspan(2);
  const auto* fwd = static_cast<const std::byte*>(args.inputs[0].data);
  const auto* dfwd = static_cast<const std::byte*>(args.inputs[1].data);
  auto fwd_part = [&](const std::byte* packed, size_t i) { return packed + loop_part_offset(body, s, i) * 4; };
  auto* out = static_cast<std::byte*>(args.output.data);
  std::memset(out, 0, static_cast<size_t>(args.output.numel()) * 4);
  auto out_part = [&](size_t input) { return reinterpret_cast<float*>(out + grad_part_offset(operands, input) * 4); };
  auto carried_bytes = [&](int64_t k) { return body.type(body.inputs[static_cast<size_t>(k)]).bytes(); };
  // The gradient of each carried value, flowing back from the final values' gradient on.
  auto* state = static_cast<std::byte*>(args.workspace) + BodyRun::scratch_bytes(body);
  auto dstate = [&](int64_t k) {
    size_t at = 0;
    for (int64_t i = 0; i < k; ++i) {
      at += packed_aligned(carried_bytes(i));
    }
    return state + at;
  };
  BodyRun run(body, args.workspace);
  int32_t counter = 0;
  const auto base = static_cast<size_t>(s.carried + 1 + s.captured);
  run.bind(static_cast<size_t>(s.carried), &counter);
  for (int64_t k = 0; k < s.captured; ++k) {
    run.bind(static_cast<size_t>(s.carried + 1 + k), operands[s.captured_input(k)].data);
  }
  for (int64_t k = 0; k < s.carried; ++k) {
    if (body.type(body.inputs[static_cast<size_t>(k)]).dtype == DType::F32) {
      std::memcpy(dstate(k), fwd_part(dfwd, final_part(s, k)), carried_bytes(k));
    } else {
      std::memset(dstate(k), 0, carried_bytes(k));
    }
    run.bind(base + static_cast<size_t>(k), dstate(k));
  }
  const auto& scan = std::get<std::vector<int64_t>>(*args.node.attrs.find("scan"));
  int32_t n = 0;
  std::memcpy(&n, fwd_part(fwd, count_part(s)), sizeof n);
  const size_t results = static_cast<size_t>(s.carried + s.collected + (s.cond ? 1 : 0));
  for (int64_t t = n - 1; t >= 0; --t) {
    counter = static_cast<int32_t>(s.begin + t);
    for (int64_t k = 0; k < s.carried; ++k) {
      run.bind(static_cast<size_t>(k), fwd_part(fwd, history_part(s, k)) + static_cast<size_t>(t) * carried_bytes(k));
    }
    for (int64_t j = 0; j < s.collected; ++j) {
      const size_t bytes = body.type(body.inputs[base + static_cast<size_t>(s.carried + j)]).bytes();
      run.bind(base + static_cast<size_t>(s.carried + j),
               fwd_part(dfwd, collected_part(s, j)) + static_cast<size_t>(t) * bytes);
    }
    const ExecContext it = iteration_context(args.ctx, t);
    run.run(&it);
    for (int64_t k = 0; k < s.captured; ++k) {
      const ValueId d = body.outputs[results + static_cast<size_t>(s.carried + k)].value;
      if (d == kNoValue) {
        continue;
      }
      const size_t input = s.captured_input(k);
      const auto* g = static_cast<const float*>(run.data(d));
      if (scan[static_cast<size_t>(k)] >= 0) {
        write_row(out_part(input), g, operands[input].shape(), static_cast<size_t>(scan[static_cast<size_t>(k)]),
                  s.begin + t);
      } else {
        accumulate(out_part(input), g, operands[input].numel(), t == n - 1, it, body.size() + k);
      }
    }
    for (int64_t k = 0; k < s.carried; ++k) {
      const ValueId d = body.outputs[results + static_cast<size_t>(k)].value;
      if (d == kNoValue || body.type(d).dtype != DType::F32) {
        std::memset(dstate(k), 0, carried_bytes(k));
      } else {
        std::memcpy(dstate(k), run.data(d), carried_bytes(k));
      }
      if (body.type(body.inputs[static_cast<size_t>(k)]).dtype == DType::F32) {
        add_nonzero(reinterpret_cast<float*>(dstate(k)),
                    reinterpret_cast<const float*>(fwd_part(dfwd, history_part(s, k)) +
                                                   static_cast<size_t>(t) * carried_bytes(k)),
                    carried_bytes(k) / sizeof(float));
      }
    }
  }
  for (int64_t k = 0; k < s.carried; ++k) {
    if (operands[static_cast<size_t>(k)].type->dtype == DType::F32) {
      std::memcpy(out_part(static_cast<size_t>(k)), dstate(k), carried_bytes(k));
    }
  }
}

Cost cost(const Graph& g, const Node& node) {
  return loop_body_cost(*node.body, node.attrs.get_int("end") - node.attrs.get_int("begin"));
}

size_t workspace(const Graph& g, const Node& node) {
  const LoopShape s = loop_shape(*node.body, node.attrs);
  return BodyRun::scratch_bytes(*node.body) + state_bytes(*node.body, s);
}
size_t temporaries(const Graph& g, const Node& node) {
  const LoopShape s = loop_shape(*node.body, node.attrs);
  return body_values_bytes(*node.body) + state_bytes(*node.body, s);
}

}  // namespace impl_loop_grad
}  // namespace

const OpDef kLoopGradOp{
    .kind = OpKind::LoopGrad,
    .name = "loop_grad",
    .arity = -1,
    .infer = impl_loop_grad::infer,
    .forward = impl_loop_grad::forward,
    .backward = nullptr,
    .cost = impl_loop_grad::cost,
    .doc =
        "loop_grad(loop, d loop, loop operands...): back-propagation through time of a loop, iterations "
        "last first, each recomputed from the carried values the loop kept; packs one f32 gradient per "
        "loop operand.",
    .workspace = impl_loop_grad::workspace,
    .attrs = kLoopAttrs,
    .edges =
        "sums each iteration's gradients last iteration first (the unrolled loop's order), each partial sum rounded to "
        "the compute type.",
    .temporaries = impl_loop_grad::temporaries,
};

}  // namespace iputrain::ir
