#include "core/ops/loop_util.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/half_round.hpp"
#include "core/rng.hpp"

namespace iputrain::ir {

namespace {

constexpr size_t kAlign = 64;
size_t aligned(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

size_t max_arity(const Graph& body) {
  size_t most = 1;
  for (const Node& n : body.nodes()) {
    most = std::max(most, n.inputs.size());
  }
  return most;
}

size_t inner_bytes(const Graph& body) {
  size_t most = 0;
  for (const Node& n : body.nodes()) {
    if (const auto ws = op_def(n.op).workspace) {
      most = std::max(most, ws(body, n));
    }
  }
  return aligned(most);
}

void fill(const Node& n, void* data) {
  const double value = n.attrs.get_float("value");
  for (int64_t i = 0; i < n.type.numel(); ++i) {
    switch (n.type.dtype) {
      case DType::I32:
        static_cast<int32_t*>(data)[i] = static_cast<int32_t>(value);
        break;
      case DType::Bool:
        static_cast<uint8_t*>(data)[i] = value != 0 ? 1 : 0;
        break;
      case DType::U8:
        static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(value);
        break;
      default:
        static_cast<float*>(data)[i] = static_cast<float>(value);
        break;
    }
  }
}

}  // namespace

Packing pack(const std::vector<TensorType>& types) {
  Packing p;
  for (const TensorType& t : types) {
    p.parts.push_back({p.elements, t});
    p.elements += static_cast<int64_t>(aligned(std::max<size_t>(t.bytes(), 1)) / 4);
  }
  return p;
}

LoopShape loop_shape(const Graph& body, const Attrs& attrs) {
  LoopShape s;
  s.carried = attrs.get_int("carried");
  s.collected = attrs.get_int("collected");
  s.cond = attrs.get_int("cond", 0) != 0;
  s.begin = attrs.get_int("begin");
  s.trips = attrs.get_int("end") - s.begin;
  s.captured = attrs.get_int("captured");
  return s;
}

namespace {
// The type of part `part` of a loop's packed result.
TensorType loop_part_type(const Graph& body, const LoopShape& s, size_t part) {
  const auto i = static_cast<int64_t>(part);
  auto stacked = [&](const TensorType& t) {
    TensorType out{t.dtype, {s.trips}};
    out.shape.insert(out.shape.end(), t.shape.begin(), t.shape.end());
    return out;
  };
  if (i < s.carried) {
    return body.type(body.inputs[part]);
  }
  if (i < s.carried + s.collected) {
    return stacked(body.type(body.outputs[part].value));
  }
  if (i < 2 * s.carried + s.collected) {
    return stacked(body.type(body.inputs[static_cast<size_t>(i - s.carried - s.collected)]));
  }
  return TensorType{DType::I32, {}};
}
}  // namespace

Packing loop_packing(const Graph& body, const LoopShape& s) {
  std::vector<TensorType> types;
  for (size_t i = 0; i <= count_part(s); ++i) {
    types.push_back(loop_part_type(body, s, i));
  }
  return pack(types);
}

int64_t loop_part_offset(const Graph& body, const LoopShape& s, size_t part) {
  int64_t at = 0;
  for (size_t i = 0; i < part; ++i) {
    const auto k = static_cast<int64_t>(i);
    size_t bytes = 4;  // the count
    if (k < s.carried) {
      bytes = body.type(body.inputs[i]).bytes();
    } else if (k < s.carried + s.collected) {
      bytes = body.type(body.outputs[i].value).bytes() * static_cast<size_t>(s.trips);
    } else if (k < 2 * s.carried + s.collected) {
      bytes = body.type(body.inputs[static_cast<size_t>(k - s.carried - s.collected)]).bytes() *
              static_cast<size_t>(s.trips);
    }
    at += static_cast<int64_t>(packed_aligned(bytes) / 4);
  }
  return at;
}

int64_t grad_part_offset(std::span<const Tensor> operands, size_t i) {
  int64_t at = 0;
  for (size_t k = 0; k < i; ++k) {
    at += static_cast<int64_t>(packed_aligned(static_cast<size_t>(operands[k].numel()) * 4) / 4);
  }
  return at;
}

Packing loop_grad_packing(std::span<const TensorType* const> loop_inputs) {
  std::vector<TensorType> types;
  for (const TensorType* t : loop_inputs) {
    types.push_back(TensorType{DType::F32, t->shape});
  }
  return pack(types);
}

bool loop_packable(const TensorType& t) {
  return t.dtype == DType::F32 || t.dtype == DType::I32 || t.dtype == DType::Bool;
}

size_t body_values_bytes(const Graph& body) {
  size_t bytes = 0;
  for (const Node& n : body.nodes()) {
    if (n.op != OpKind::LoopArg) {
      bytes += aligned(std::max<size_t>(n.type.bytes(), 1));
    }
  }
  return bytes + inner_bytes(body);
}

size_t BodyRun::scratch_bytes(const Graph& body) {
  return aligned(sizeof(size_t) * body.nodes().size()) + aligned(sizeof(void*) * body.inputs.size()) +
         aligned(sizeof(Tensor) * max_arity(body)) + body_values_bytes(body);
}

BodyRun::BodyRun(const Graph& body, void* scratch) : body_(body), base_(static_cast<std::byte*>(scratch)) {
  std::byte* at = base_;
  offset_ = reinterpret_cast<size_t*>(at);
  at += aligned(sizeof(size_t) * body.nodes().size());
  args_ = reinterpret_cast<const void**>(at);
  at += aligned(sizeof(void*) * body.inputs.size());
  operands_ = reinterpret_cast<Tensor*>(at);
  at += aligned(sizeof(Tensor) * max_arity(body));
  for (ValueId id = 0; id < body.size(); ++id) {
    const Node& n = body.node(id);
    if (n.op == OpKind::LoopArg) {
      offset_[id] = static_cast<size_t>(n.attrs.get_int("index"));  // its slot in args_
      continue;
    }
    offset_[id] = static_cast<size_t>(at - base_);
    if (n.op == OpKind::Constant) {
      fill(n, at);
    }
    at += aligned(std::max<size_t>(n.type.bytes(), 1));
  }
  inner_ = at;
}

const void* BodyRun::data(ValueId v) const {
  const Node& n = body_.node(v);
  return n.op == OpKind::LoopArg ? args_[offset_[v]] : base_ + offset_[v];
}

void BodyRun::run(const ExecContext* ctx) {
  for (ValueId id = 0; id < body_.size(); ++id) {
    const Node& n = body_.node(id);
    const OpDef& def = op_def(n.op);
    if (def.forward == nullptr) {
      continue;
    }
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      operands_[i] = Tensor{&body_.type(n.inputs[i]), const_cast<void*>(data(n.inputs[i]))};
    }
    const Tensor out{&n.type, base_ + offset_[id]};
    def.forward(KernelArgs{n, {operands_, n.inputs.size()}, out, ctx, inner_});
    // Rounded to the half compute type as the engine rounds every op's result.
    if (ctx != nullptr && ctx->rounding != nullptr && n.type.dtype == DType::F32 && !op_has(n.op, op_flags::packed)) {
      const uint64_t key = ctx->rounding->stochastic ? rounding_key(ctx->seed, id, ctx->step) : 0;
      const int64_t over = round_in_place(out.f32(), out.numel(), *ctx->rounding, key);
      if (ctx->overflows != nullptr) {
        *ctx->overflows += over;
      }
    }
  }
}

ExecContext iteration_context(const ExecContext* ctx, int64_t t) {
  ExecContext it = ctx != nullptr ? *ctx : ExecContext{};
  it.seed = mix64(it.seed ^ mix64(static_cast<uint64_t>(t) + 0x6c6f6f70ULL));
  return it;
}

}  // namespace iputrain::ir
