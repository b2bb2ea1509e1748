// lstm: the fused long short-term memory recurrence (PopnnLSTM, Keras LSTM with the sigmoid
// recurrent activation). Inputs: xw f32[b, t, 4u] (x @ kernel + bias, gates i, f, c, o in Keras'
// order), the recurrent kernel f32[u, 4u], the initial states h0 and c0 f32[b, u] and lengths
// i32[b]. Output f32[b, t, 6u]: per step the activated gates i, f, g, o, then the cell c and the
// hidden state h, which is what the gradient needs. Per valid step:
//   [i f g o] = [sigmoid sigmoid tanh sigmoid](xw_s + h_prev @ recurrent_kernel)
//   c = f * c_prev + i * g,  h = o * tanh(c)
// A step at or past the sample's length keeps c and h and has zero gates. Gradient: lstm_grad,
// which runs the recurrence backwards; the kernel's gradient is a product over every step.
#include <fmt/format.h>

#include "core/ops/gemm.hpp"
#include "core/ops/recurrent_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_lstm {

constexpr int64_t kGates = 4;
constexpr int64_t kWidth = 6;  // i, f, g, o, c, h

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const RecurrentDims d = recurrent_dims(*in[0], *in[1], kGates);
  check_state(*in[2], d, "h0");
  check_state(*in[3], d, "c0");
  check_lengths(*in[4], d);
  return TensorType{DType::F32, {d.b, d.t, kWidth * d.u}};
}

RecurrentDims dims_of(const KernelArgs& args) {
  const Shape& s = args.inputs[0].shape();
  return {s[0], s[1], args.inputs[1].shape()[0]};
}

// Step s of sample n: the gates from its pre-activations p (= xw_s + h_prev @ recurrent_kernel).
void cell(int64_t u, const float* p, float* c_state, float* h_state, float* out) {
  const ConstRow pi(p, u), pf(p + u, u), pg(p + 2 * u, u), po(p + 3 * u, u);
  Row i(out, u), f(out + u, u), g(out + 2 * u, u), o(out + 3 * u, u), c(out + 4 * u, u), h(out + 5 * u, u);
  Row cs(c_state, u), hs(h_state, u);
  i = pi.logistic();
  f = pf.logistic();
  g = pg.tanh();
  o = po.logistic();
  c = f * cs + i * g;
  h = o * c.tanh();
  cs = c;
  hs = h;
}

void forward(const KernelArgs& args) {
  const RecurrentDims d = dims_of(args);
  const int64_t u = d.u;
  const float* xw = args.inputs[0].f32();
  const float* kernel = args.inputs[1].f32();
  const int32_t* lengths = args.inputs[4].i32();
  float* out = args.output.f32();
  float* h = static_cast<float*>(args.workspace);  // [b, u]: the running states
  float* c = h + d.b * u;                          // [b, u]
  float* p = c + d.b * u;                          // [b, 4u]: the pre-activations of a step
  for (int64_t n = 0; n < d.b; ++n) {
    sample_steps(args.node, lengths, n, d.t);
  }
  std::copy_n(args.inputs[2].f32(), d.b * u, h);
  std::copy_n(args.inputs[3].f32(), d.b * u, c);
  for (int64_t s = 0; s < d.t; ++s) {
    gemm(h, false, kernel, false, p, d.b, kGates * u, u);
    for_samples(d.b, 64 * u, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        float* o = out + (n * d.t + s) * kWidth * u;
        if (s >= lengths[n]) {
          std::fill_n(o, kGates * u, 0.0f);
          std::copy_n(c + n * u, u, o + 4 * u);
          std::copy_n(h + n * u, u, o + 5 * u);
          continue;
        }
        float* pn = p + n * kGates * u;
        const float* x = xw + (n * d.t + s) * kGates * u;
        Row(pn, kGates * u) += ConstRow(x, kGates * u);
        cell(u, pn, c + n * u, h + n * u, o);
      }
    });
  }
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[2]).shape;  // h0 [b, u]
  return static_cast<size_t>((2 + kGates) * s[0] * s[1]) * sizeof(float);
}

Cost cost(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[0]).shape;
  return recurrent_cost(g, node, {s[0], s[1], g.type(node.inputs[1]).shape[0]}, kGates, 1.0, 12.0);
}

// The gradient of every input but the lengths: lstm_grad gives the pre-activations' gradient per
// step (which is xw's) and, in its last row, those of h0 and c0; the recurrent kernel's is
// h_prev^T @ dpre summed over every sample and step (one product, as a dense layer's).
std::vector<ValueId> backward(Graph& g, ValueId id, ValueId dy) {
  const Node n = g.node(id);
  const Shape xs = g.type(n.inputs[0]).shape;
  const int64_t b = xs[0], t = xs[1], u = g.type(n.inputs[1]).shape[0];
  const ValueId packed = g.add(OpKind::LstmGrad, {dy, id, n.inputs[1], n.inputs[3], n.inputs[4]});
  auto cut = [&](ValueId v, Shape begin, Shape end) {
    return g.add(OpKind::Slice, {v}, Attrs{{"begin", std::move(begin)}, {"end", std::move(end)}});
  };
  auto flat = [&](ValueId v, int64_t w) { return g.add(OpKind::Reshape, {v}, Attrs{{"shape", Shape{-1, w}}}); };
  const ValueId dxw = cut(packed, {0, 0, 0}, {b, t, kGates * u});
  const ValueId dh0 = flat(cut(packed, {0, t, 0}, {b, t + 1, u}), u);
  const ValueId dc0 = flat(cut(packed, {0, t, u}, {b, t + 1, 2 * u}), u);
  // h_prev of every step: h0, then the hidden states of steps 0 .. t-2.
  ValueId h_prev = g.add(OpKind::Reshape, {n.inputs[2]}, Attrs{{"shape", Shape{b, 1, u}}});
  if (t > 1) {
    const ValueId hs = cut(id, {0, 0, 5 * u}, {b, t - 1, 6 * u});
    h_prev = g.add(OpKind::Concat, {h_prev, hs}, Attrs{{"axis", int64_t{1}}});
  }
  const ValueId dkernel =
      g.add(OpKind::MatMul, {flat(h_prev, u), flat(dxw, kGates * u)}, Attrs{{"transpose_a", int64_t{1}}});
  return {dxw, dkernel, dh0, dc0, kNoValue};
}

}  // namespace impl_lstm
}  // namespace

const OpDef kLstmOp{
    .kind = OpKind::Lstm,
    .name = "lstm",
    .arity = 5,
    .infer = impl_lstm::infer,
    .forward = impl_lstm::forward,
    .backward = impl_lstm::backward,
    .cost = impl_lstm::cost,
    .doc =
        "lstm(xw f32[b, t, 4u], recurrent_kernel f32[u, 4u], h0 f32[b, u], c0 f32[b, u], lengths i32[b]): "
        "the fused LSTM recurrence over xw = x @ kernel + bias (gates i, f, c, o); f32[b, t, 6u] holding per "
        "step the gates i, f, g, o, the cell c and the hidden state h. Steps past a sample's length keep its "
        "state and have zero gates. nn.lstm is the layer.",
    .workspace = impl_lstm::workspace,
    .inputs = kLstmInputs,
    .edges =
        "sigmoid and tanh saturate without overflow for large pre-activations (±inf gives 0 or 1, ±1); nan "
        "in xw or a state spreads to every later step of its sample only; a length outside [0, t] is a "
        "located data error.",
};

}  // namespace iputrain::ir
