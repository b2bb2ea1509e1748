// lstm_grad: back-propagation through time of lstm. Inputs: dy f32[b, t, 6u] (the gradient of
// lstm's output), lstm's output, the recurrent kernel, c0 and lengths. Output f32[b, t + 1, 4u]:
// rows 0 .. t-1 the gradient of each step's gate pre-activations (which is xw's), row t the
// gradients of h0 and c0 in its first 2u columns (zeros after). Walking the steps backwards:
//   dh = dh_next + dy_h,  dc = dc_next + dy_c + dh * o * (1 - tanh(c)^2)
//   dpre = [dc g + dy_i, dc c_prev + dy_f, dc i + dy_g, dh tanh(c) + dy_o] * the activations' slopes
//   dh_next = dpre @ recurrent_kernel^T,  dc_next = dc * f
// A step past the sample's length passes dh and dc through to the step before.
#include "core/ops/gemm.hpp"
#include "core/ops/recurrent_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_lstm_grad {

constexpr int64_t kGates = 4;
constexpr int64_t kWidth = 6;

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& out = *in[1];
  if (out.rank() != 3) {
    throw OpError{"lstm_grad needs lstm's output f32[b, t, 6u]", ""};
  }
  const TensorType xw{DType::F32, {out.shape[0], out.shape[1], out.shape[2] / kWidth * kGates}};
  const RecurrentDims d = recurrent_dims(xw, *in[2], kGates);
  check_sequence(*in[0], d, kWidth * d.u, "dy");
  check_sequence(out, d, kWidth * d.u, "lstm's output");
  check_state(*in[3], d, "c0");
  check_lengths(*in[4], d);
  return TensorType{DType::F32, {d.b, d.t + 1, kGates * d.u}};
}

// Writes step s's dpre for one sample (into dpre) and updates its dh, dc (dc becomes dc_next).
// `scratch` holds u floats.
void step_back(int64_t u, const float* dy, const float* out, const float* c_prev, float* dh, float* dc, float* dpre,
               float* scratch) {
  const ConstRow i(out, u), f(out + u, u), g(out + 2 * u, u), o(out + 3 * u, u), c(out + 4 * u, u);
  Row h_grad(dh, u), c_grad(dc, u), tc(scratch, u);
  h_grad += ConstRow(dy + 5 * u, u);
  tc = c.tanh();
  c_grad += ConstRow(dy + 4 * u, u) + h_grad * o * (1.0f - tc.square());
  Row(dpre, u) = (c_grad * g + ConstRow(dy, u)) * i * (1.0f - i);
  Row(dpre + u, u) = (c_grad * ConstRow(c_prev, u) + ConstRow(dy + u, u)) * f * (1.0f - f);
  Row(dpre + 2 * u, u) = (c_grad * i + ConstRow(dy + 2 * u, u)) * (1.0f - g.square());
  Row(dpre + 3 * u, u) = (h_grad * tc + ConstRow(dy + 3 * u, u)) * o * (1.0f - o);
  c_grad *= f;
}

void forward(const KernelArgs& args) {
  const Shape& s3 = args.inputs[1].shape();
  const RecurrentDims d{s3[0], s3[1], args.inputs[2].shape()[0]};
  const int64_t u = d.u;
  const float* dy = args.inputs[0].f32();
  const float* out = args.inputs[1].f32();
  const float* kernel = args.inputs[2].f32();
  const float* c0 = args.inputs[3].f32();
  const int32_t* lengths = args.inputs[4].i32();
  float* grad = args.output.f32();
  float* dh = static_cast<float*>(args.workspace);  // [b, u]
  float* dc = dh + d.b * u;                         // [b, u]
  float* dpre = dc + d.b * u;                       // [b, 4u]
  float* back = dpre + d.b * kGates * u;            // [b, u]: dpre @ kernel^T, and scratch
  for (int64_t n = 0; n < d.b; ++n) {
    sample_steps(args.node, lengths, n, d.t);
  }
  std::fill_n(dh, 2 * d.b * u, 0.0f);
  for (int64_t s = d.t - 1; s >= 0; --s) {
    for_samples(d.b, 64 * u, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        const int64_t at = n * d.t + s;
        float* pre = dpre + n * kGates * u;
        if (s >= lengths[n]) {
          Row(dh + n * u, u) += ConstRow(dy + at * kWidth * u + 5 * u, u);
          Row(dc + n * u, u) += ConstRow(dy + at * kWidth * u + 4 * u, u);
          std::fill_n(pre, kGates * u, 0.0f);
        } else {
          const float* c_prev = s > 0 ? out + (at - 1) * kWidth * u + 4 * u : c0 + n * u;
          step_back(u, dy + at * kWidth * u, out + at * kWidth * u, c_prev, dh + n * u, dc + n * u, pre, back + n * u);
        }
        std::copy_n(pre, kGates * u, grad + (n * (d.t + 1) + s) * kGates * u);
      }
    });
    gemm(dpre, false, kernel, true, back, d.b, u, kGates * u);
    for (int64_t n = 0; n < d.b; ++n) {
      if (s < lengths[n]) {
        std::copy_n(back + n * u, u, dh + n * u);
      }
    }
  }
  for (int64_t n = 0; n < d.b; ++n) {
    float* last = grad + (n * (d.t + 1) + d.t) * kGates * u;
    std::copy_n(dh + n * u, u, last);
    std::copy_n(dc + n * u, u, last + u);
    std::fill_n(last + 2 * u, 2 * u, 0.0f);
  }
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[3]).shape;  // c0 [b, u]
  return static_cast<size_t>((3 + kGates) * s[0] * s[1]) * sizeof(float);
}

Cost cost(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[1]).shape;
  return recurrent_cost(g, node, {s[0], s[1], g.type(node.inputs[2]).shape[0]}, kGates, 1.0, 16.0);
}

constexpr std::string_view kInputs[] = {"dy", "out", "recurrent_kernel", "c0", "lengths"};

}  // namespace impl_lstm_grad
}  // namespace

const OpDef kLstmGradOp{
    .kind = OpKind::LstmGrad,
    .name = "lstm_grad",
    .arity = 5,
    .infer = impl_lstm_grad::infer,
    .forward = impl_lstm_grad::forward,
    .backward = nullptr,
    .cost = impl_lstm_grad::cost,
    .doc =
        "lstm_grad(dy, out, recurrent_kernel, c0, lengths): lstm's back-propagation through time; "
        "f32[b, t + 1, 4u], the gate pre-activations' gradient per step, then dh0 and dc0.",
    .workspace = impl_lstm_grad::workspace,
    .inputs = impl_lstm_grad::kInputs,
    .edges = "as lstm: saturated gates give zero slopes, never nan; nan spreads backwards within its sample.",
};

}  // namespace iputrain::ir
