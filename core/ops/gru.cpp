// gru: the fused gated recurrent unit (PopnnGRU, Keras GRU with the sigmoid recurrent
// activation). Inputs: xw f32[b, t, 3u] (x @ kernel + input bias, gates z, r, h in Keras' order),
// the recurrent kernel f32[u, 3u], the recurrent bias f32[3u], h0 f32[b, u] and lengths i32[b].
// Attribute reset_after (Keras' default 1): whether the reset gate multiplies the recurrent
// product (1) or the state before it (0). Output f32[b, t, 5u]: per step z, r, the candidate hh,
// the recurrent term n of hh and the hidden state h. Per valid step, with p = h_prev @ kernel + rb:
//   z = sigmoid(xw_z + p_z),  r = sigmoid(xw_r + p_r)
//   n = p_h (reset_after) or (r * h_prev) @ kernel_h + rb_h,  hh = tanh(xw_h + (r if reset_after) * n)
//   h = z * h_prev + (1 - z) * hh
// A step at or past the sample's length keeps h and has zero gates. Gradient: gru_grad.
#include <fmt/format.h>

#include "core/ops/gemm.hpp"
#include "core/ops/recurrent_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_gru {

constexpr int64_t kGates = 3;
constexpr int64_t kWidth = 5;  // z, r, hh, n, h

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const RecurrentDims d = recurrent_dims(*in[0], *in[1], kGates);
  if (in[2]->dtype != DType::F32 || in[2]->shape != Shape{kGates * d.u}) {
    throw OpError{fmt::format("recurrent_bias must be f32[{}] (3 * units), got {}", kGates * d.u, in[2]->str()), ""};
  }
  check_state(*in[3], d, "h0");
  check_lengths(*in[4], d);
  return TensorType{DType::F32, {d.b, d.t, kWidth * d.u}};
}

// The buffers of one run, carved from the workspace.
struct GruBuffers {
  float* h;         // [b, u] the running states
  float* p;         // [b, 3u] h @ kernel
  float* rh;        // [b, u] r * h_prev (reset_after = 0)
  float* q;         // [b, u] rh @ kernel_h
  float* kernel_h;  // [u, u] the candidate's block of the kernel, dense
};

GruBuffers carve(void* workspace, int64_t b, int64_t u) {
  auto* w = static_cast<float*>(workspace);
  return {w, w + b * u, w + b * (kGates + 1) * u, w + b * (kGates + 2) * u, w + b * (kGates + 3) * u};
}

// Phase one of a valid step: z, r (and n when reset_after) into the output row o.
void gates(int64_t u, const float* x, const float* p, const float* rb, bool reset_after, const float* h_prev, float* o,
           float* rh) {
  Row z(o, u), r(o + u, u), nn(o + 3 * u, u);
  z = (ConstRow(x, u) + ConstRow(p, u) + ConstRow(rb, u)).logistic();
  r = (ConstRow(x + u, u) + ConstRow(p + u, u) + ConstRow(rb + u, u)).logistic();
  if (reset_after) {
    nn = ConstRow(p + 2 * u, u) + ConstRow(rb + 2 * u, u);
  } else {
    Row(rh, u) = r * ConstRow(h_prev, u);
  }
}

// Phase two: n when not reset_after (from q = (r * h_prev) @ kernel_h), then hh and h, the state
// updated in place.
void update(int64_t u, const float* x, const float* q, const float* rb, bool reset_after, float* o, float* h) {
  if (!reset_after) {
    Row(o + 3 * u, u) = ConstRow(q, u) + ConstRow(rb + 2 * u, u);
  }
  const ConstRow z(o, u), r(o + u, u), nn(o + 3 * u, u);
  Row hh(o + 2 * u, u), hs(h, u), out_h(o + 4 * u, u);
  if (reset_after) {
    hh = (ConstRow(x + 2 * u, u) + r * nn).tanh();
  } else {
    hh = (ConstRow(x + 2 * u, u) + nn).tanh();
  }
  out_h = z * hs + (1.0f - z) * hh;
  hs = out_h;
}

void forward(const KernelArgs& args) {
  const Shape& xs = args.inputs[0].shape();
  const RecurrentDims d{xs[0], xs[1], args.inputs[1].shape()[0]};
  const int64_t u = d.u;
  const float* xw = args.inputs[0].f32();
  const float* kernel = args.inputs[1].f32();
  const float* rb = args.inputs[2].f32();
  const int32_t* lengths = args.inputs[4].i32();
  const bool reset_after = args.node.attrs.get_int("reset_after", 1) != 0;
  float* out = args.output.f32();
  const GruBuffers w = carve(args.workspace, d.b, u);
  for (int64_t n = 0; n < d.b; ++n) {
    sample_steps(args.node, lengths, n, d.t);
  }
  std::copy_n(args.inputs[3].f32(), d.b * u, w.h);
  for (int64_t k = 0; k < u && !reset_after; ++k) {
    std::copy_n(kernel + k * kGates * u + 2 * u, u, w.kernel_h + k * u);
  }
  auto row = [&](int64_t n, int64_t s) { return out + (n * d.t + s) * kWidth * u; };
  auto x_row = [&](int64_t n, int64_t s) { return xw + (n * d.t + s) * kGates * u; };
  for (int64_t s = 0; s < d.t; ++s) {
    gemm(w.h, false, kernel, false, w.p, d.b, kGates * u, u);
    for_samples(d.b, 32 * u, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        if (s >= lengths[n]) {
          std::fill_n(row(n, s), 4 * u, 0.0f);
          std::copy_n(w.h + n * u, u, row(n, s) + 4 * u);
          std::fill_n(w.rh + n * u, u, 0.0f);
          continue;
        }
        gates(u, x_row(n, s), w.p + n * kGates * u, rb, reset_after, w.h + n * u, row(n, s), w.rh + n * u);
      }
    });
    if (!reset_after) {
      gemm(w.rh, false, w.kernel_h, false, w.q, d.b, u, u);
    }
    for_samples(d.b, 32 * u, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        if (s < lengths[n]) {
          update(u, x_row(n, s), w.q + n * u, rb, reset_after, row(n, s), w.h + n * u);
        }
      }
    });
  }
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[3]).shape;  // h0 [b, u]
  return static_cast<size_t>((kGates + 3) * s[0] * s[1] + s[1] * s[1]) * sizeof(float);
}

Cost cost(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[0]).shape;
  const bool reset_after = node.attrs.get_int("reset_after", 1) != 0;
  return recurrent_cost(g, node, {s[0], s[1], g.type(node.inputs[1]).shape[0]}, kGates, reset_after ? 1.0 : 4.0 / 3.0,
                        10.0);
}

// The gradient of every input but the lengths, from gru_grad's rows [dxw | d_inner] and its last
// row (dh0): the recurrent kernel's is h_prev^T @ d_inner (the candidate's block against r * h_prev
// when not reset_after), the recurrent bias's the sum of d_inner.
std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const Shape xs = g.type(n.inputs[0]).shape;
  const int64_t b = xs[0], t = xs[1], u = g.type(n.inputs[1]).shape[0];
  const int64_t reset_after = n.attrs.get_int("reset_after", 1);
  const ValueId packed =
      g.add(OpKind::GruGrad, {dy, id, n.inputs[1], n.inputs[3], n.inputs[4]}, Attrs{{"reset_after", reset_after}});
  auto cut = [&](ValueId v, Shape begin, Shape end) {
    return g.add(OpKind::Slice, {v}, Attrs{{"begin", std::move(begin)}, {"end", std::move(end)}});
  };
  auto flat = [&](ValueId v, int64_t w) { return g.add(OpKind::Reshape, {v}, Attrs{{"shape", Shape{-1, w}}}); };
  auto tn = [&](ValueId a, ValueId c) { return g.add(OpKind::MatMul, {a, c}, Attrs{{"transpose_a", int64_t{1}}}); };
  const ValueId dxw = cut(packed, {0, 0, 0}, {b, t, kGates * u});
  const ValueId inner = flat(cut(packed, {0, 0, kGates * u}, {b, t, 2 * kGates * u}), kGates * u);
  const ValueId dh0 = flat(cut(packed, {0, t, 0}, {b, t + 1, u}), u);
  ValueId h_prev = g.add(OpKind::Reshape, {n.inputs[3]}, Attrs{{"shape", Shape{b, 1, u}}});
  if (t > 1) {
    h_prev = g.add(OpKind::Concat, {h_prev, cut(id, {0, 0, 4 * u}, {b, t - 1, 5 * u})}, Attrs{{"axis", int64_t{1}}});
  }
  ValueId dkernel = kNoValue;
  if (reset_after != 0) {
    dkernel = tn(flat(h_prev, u), inner);
  } else {
    const ValueId rh = g.add(OpKind::Mul, {cut(id, {0, 0, u}, {b, t, 2 * u}), h_prev});
    const ValueId zr = tn(flat(h_prev, u), cut(inner, {0, 0}, {b * t, 2 * u}));
    const ValueId hh = tn(flat(rh, u), cut(inner, {0, 2 * u}, {b * t, 3 * u}));
    dkernel = g.add(OpKind::Concat, {zr, hh}, Attrs{{"axis", int64_t{1}}});
  }
  const ValueId dbias = g.add(OpKind::Sum, {inner}, Attrs{{"axes", Shape{0}}, {"keepdims", int64_t{0}}});
  return {dxw, dkernel, dbias, dh0, kNoValue};
}

constexpr AttrSpec kAttrs[] = {{.name = "reset_after", .type = AttrType::Int, .number = 1, .min = 0, .max = 1}};

}  // namespace impl_gru
}  // namespace

const OpDef kGruOp{
    .kind = OpKind::Gru,
    .name = "gru",
    .arity = 5,
    .infer = impl_gru::infer,
    .forward = impl_gru::forward,
    .backward = impl_gru::backward,
    .cost = impl_gru::cost,
    .doc =
        "gru(xw f32[b, t, 3u], recurrent_kernel f32[u, 3u], recurrent_bias f32[3u], h0 f32[b, u], lengths "
        "i32[b]; reset_after = 1): the fused GRU recurrence over xw = x @ kernel + input bias (gates z, r, h); "
        "f32[b, t, 5u] holding per step z, r, the candidate, its recurrent term and the hidden state h. Steps "
        "past a sample's length keep its state and have zero gates. nn.gru is the layer.",
    .workspace = impl_gru::workspace,
    .inputs = kGruInputs,
    .attrs = impl_gru::kAttrs,
    .edges =
        "sigmoid and tanh saturate without overflow for large pre-activations; nan in xw or the state "
        "spreads to every later step of its sample only; a length outside [0, t] is a located data error.",
};

}  // namespace iputrain::ir
