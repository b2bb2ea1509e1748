// gru_grad: back-propagation through time of gru. Inputs: dy f32[b, t, 5u], gru's output, the
// recurrent kernel, h0 and lengths; attribute reset_after as gru's. Output f32[b, t + 1, 6u]: rows
// 0 .. t-1 hold [dxw | d_inner] per step, where dxw is the gradient of xw's gates z, r, h and
// d_inner that of the recurrent terms (p_z, p_r, n), from which gru's backward forms the kernel's
// and the recurrent bias's gradients; row t holds dh0 in its first u columns (zeros after).
// Walking the steps backwards, with dh = dh_next + dy_h:
//   dz = dh (h_prev - hh) + dy_z,  dhh = (dh (1 - z) + dy_hh) (1 - hh^2)
//   reset_after: dn = dhh r + dy_n,  dr = dhh n + dy_r
//   otherwise:   dn = dhh + dy_n,    dr = (dn @ kernel_h^T) h_prev + dy_r
//   dh_next = dh z [+ (dn @ kernel_h^T) r] + [dz', dr', dn or 0] @ kernel^T   (' = through the sigmoid)
// A step past the sample's length passes dh through to the step before.
#include "core/ops/gemm.hpp"
#include "core/ops/recurrent_util.hpp"

namespace iputrain::ir {

namespace {
namespace impl_gru_grad {

constexpr int64_t kGates = 3;
constexpr int64_t kWidth = 5;

TensorType infer(std::span<const TensorType* const> in, const Attrs&) {
  const TensorType& out = *in[1];
  if (out.rank() != 3) {
    throw OpError{"gru_grad needs gru's output f32[b, t, 5u]", ""};
  }
  const TensorType xw{DType::F32, {out.shape[0], out.shape[1], out.shape[2] / kWidth * kGates}};
  const RecurrentDims d = recurrent_dims(xw, *in[2], kGates);
  check_sequence(*in[0], d, kWidth * d.u, "dy");
  check_sequence(out, d, kWidth * d.u, "gru's output");
  check_state(*in[3], d, "h0");
  check_lengths(*in[4], d);
  return TensorType{DType::F32, {d.b, d.t + 1, 2 * kGates * d.u}};
}

// The buffers of one run, carved from the workspace ([b, u] each unless said).
struct Buffers {
  float* dh;        // the running dh
  float* direct;    // dh_next's part that does not go through the kernel
  float* e;         // [b, 3u] what multiplies kernel^T
  float* back;      // e @ kernel^T
  float* dn;        // dn (reset_after = 0)
  float* drh;       // dn @ kernel_h^T (reset_after = 0)
  float* kernel_h;  // [u, u]
};

Buffers carve(void* workspace, int64_t b, int64_t u) {
  auto* w = static_cast<float*>(workspace);
  const int64_t bu = b * u;
  return {w, w + bu, w + 2 * bu, w + 5 * bu, w + 6 * bu, w + 7 * bu, w + 8 * bu};
}

// What one step needs of one sample.
struct StepRows {
  const float* dy;
  const float* out;
  const float* h_prev;
  float* grad;  // [dxw | d_inner] of the step
};

// Phase one: everything up to dn; for reset_after also dr (then the row is complete).
void phase_one(int64_t u, const StepRows& r, bool reset_after, float* dh, float* dn) {
  const ConstRow z(r.out, u), rg(r.out + u, u), hh(r.out + 2 * u, u), nn(r.out + 3 * u, u);
  Row h_grad(dh, u);
  h_grad += ConstRow(r.dy + 4 * u, u);
  Row dzp(r.grad, u), dhhp(r.grad + 2 * u, u), in_n(r.grad + 5 * u, u);
  dzp = (h_grad * (ConstRow(r.h_prev, u) - hh) + ConstRow(r.dy, u)) * z * (1.0f - z);
  dhhp = (h_grad * (1.0f - z) + ConstRow(r.dy + 2 * u, u)) * (1.0f - hh.square());
  Row(r.grad + 3 * u, u) = dzp;
  if (reset_after) {
    in_n = dhhp * rg + ConstRow(r.dy + 3 * u, u);
    Row(r.grad + u, u) = (dhhp * nn + ConstRow(r.dy + u, u)) * rg * (1.0f - rg);
    Row(r.grad + 4 * u, u) = ConstRow(r.grad + u, u);
  } else {
    in_n = dhhp + ConstRow(r.dy + 3 * u, u);
    Row(dn, u) = in_n;
  }
}

// Phase two (reset_after = 0): dr from drh = dn @ kernel_h^T.
void phase_two(int64_t u, const StepRows& r, const float* drh, float* direct) {
  const ConstRow rg(r.out + u, u), dr_h(drh, u);
  Row(r.grad + u, u) = (dr_h * ConstRow(r.h_prev, u) + ConstRow(r.dy + u, u)) * rg * (1.0f - rg);
  Row(r.grad + 4 * u, u) = ConstRow(r.grad + u, u);
  Row(direct, u) += dr_h * rg;
}

void forward(const KernelArgs& args) {
  const Shape& s3 = args.inputs[1].shape();
  const RecurrentDims d{s3[0], s3[1], args.inputs[2].shape()[0]};
  const int64_t u = d.u;
  const float* kernel = args.inputs[2].f32();
  const int32_t* lengths = args.inputs[4].i32();
  const bool reset_after = args.node.attrs.get_int("reset_after", 1) != 0;
  float* grad = args.output.f32();
  const Buffers w = carve(args.workspace, d.b, u);
  for (int64_t n = 0; n < d.b; ++n) {
    sample_steps(args.node, lengths, n, d.t);
  }
  for (int64_t k = 0; k < u && !reset_after; ++k) {
    std::copy_n(kernel + k * kGates * u + 2 * u, u, w.kernel_h + k * u);
  }
  std::fill_n(w.dh, d.b * u, 0.0f);
  auto rows = [&](int64_t n, int64_t s) {
    const int64_t at = n * d.t + s;
    const float* out = args.inputs[1].f32();
    return StepRows{args.inputs[0].f32() + at * kWidth * u, out + at * kWidth * u,
                    s > 0 ? out + (at - 1) * kWidth * u + 4 * u : args.inputs[3].f32() + n * u,
                    grad + (n * (d.t + 1) + s) * 2 * kGates * u};
  };
  for (int64_t s = d.t - 1; s >= 0; --s) {
    for_samples(d.b, 48 * u, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        const StepRows r = rows(n, s);
        if (s >= lengths[n]) {
          Row(w.dh + n * u, u) += ConstRow(r.dy + 4 * u, u);
          std::fill_n(r.grad, 2 * kGates * u, 0.0f);
          std::fill_n(w.dn + n * u, u, 0.0f);
          continue;
        }
        phase_one(u, r, reset_after, w.dh + n * u, w.dn + n * u);
        Row(w.direct + n * u, u) = ConstRow(w.dh + n * u, u) * ConstRow(r.out, u);
      }
    });
    if (!reset_after) {
      gemm(w.dn, false, w.kernel_h, true, w.drh, d.b, u, u);
    }
    for_samples(d.b, 16 * u, [&](int64_t n0, int64_t n1) {
      for (int64_t n = n0; n < n1; ++n) {
        const StepRows r = rows(n, s);
        if (s < lengths[n] && !reset_after) {
          phase_two(u, r, w.drh + n * u, w.direct + n * u);
        }
        // What goes through the kernel: d_inner, without its candidate block when not reset_after.
        std::copy_n(r.grad + kGates * u, kGates * u, w.e + n * kGates * u);
        if (!reset_after) {
          std::fill_n(w.e + n * kGates * u + 2 * u, u, 0.0f);
        }
      }
    });
    gemm(w.e, false, kernel, true, w.back, d.b, u, kGates * u);
    for (int64_t n = 0; n < d.b; ++n) {
      if (s < lengths[n]) {
        Row(w.dh + n * u, u) = ConstRow(w.direct + n * u, u) + ConstRow(w.back + n * u, u);
      }
    }
  }
  for (int64_t n = 0; n < d.b; ++n) {
    float* last = grad + (n * (d.t + 1) + d.t) * 2 * kGates * u;
    std::copy_n(w.dh + n * u, u, last);
    std::fill_n(last + u, (2 * kGates - 1) * u, 0.0f);
  }
}

size_t workspace(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[3]).shape;  // h0 [b, u]
  return static_cast<size_t>(8 * s[0] * s[1] + s[1] * s[1]) * sizeof(float);
}

Cost cost(const Graph& g, const Node& node) {
  const Shape& s = g.type(node.inputs[1]).shape;
  const bool reset_after = node.attrs.get_int("reset_after", 1) != 0;
  return recurrent_cost(g, node, {s[0], s[1], g.type(node.inputs[2]).shape[0]}, kGates, reset_after ? 1.0 : 4.0 / 3.0,
                        14.0);
}

constexpr std::string_view kInputs[] = {"dy", "out", "recurrent_kernel", "h0", "lengths"};
constexpr AttrSpec kAttrs[] = {{.name = "reset_after", .type = AttrType::Int, .number = 1, .min = 0, .max = 1}};

}  // namespace impl_gru_grad
}  // namespace

const OpDef kGruGradOp{
    .kind = OpKind::GruGrad,
    .name = "gru_grad",
    .arity = 5,
    .infer = impl_gru_grad::infer,
    .forward = impl_gru_grad::forward,
    .backward = nullptr,
    .cost = impl_gru_grad::cost,
    .doc =
        "gru_grad(dy, out, recurrent_kernel, h0, lengths; reset_after): gru's back-propagation through "
        "time; f32[b, t + 1, 6u], per step the gradients of xw and of the recurrent terms, then dh0.",
    .workspace = impl_gru_grad::workspace,
    .inputs = impl_gru_grad::kInputs,
    .attrs = impl_gru_grad::kAttrs,
    .edges = "as gru: saturated gates give zero slopes, never nan; nan spreads backwards within its sample.",
};

}  // namespace iputrain::ir
