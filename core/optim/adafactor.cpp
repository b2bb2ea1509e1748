// Adafactor (Shazeer & Stern 2018, "Adafactor: Adaptive Learning Rates with Sublinear Memory
// Cost", Algorithms 4 and 5 with the update clipping of section 6 and the relative step of section
// 8), in the form of the reference implementation in fairseq and HF transformers, which torch 1.13
// lacks. Per weight tensor W of shape [..., r, c] (a vector: unfactored), at update t:
//   b2 = 1 - t^beta2_decay;  G2 = g^2 + epsilon1
//   factored (rank >= 2, over the last two dimensions, each leading index its own matrix):
//     R <- b2 R + (1 - b2) mean_cols(G2)   (r values)     C <- b2 C + (1 - b2) mean_rows(G2)   (c values)
//     U = g / sqrt(R C / mean(R))
//   unfactored: V <- b2 V + (1 - b2) G2;  U = g / sqrt(V)
//   U <- U / max(1, RMS(U) / clip_threshold)                                    (update clipping)
//   rho = min(lr, 1 / sqrt(t)) with relative_step, else lr;  a = rho * max(epsilon2, RMS(W)) with
//   scale_parameter, else rho
//   with beta1 > 0: M <- beta1 M + (1 - beta1) a U, the step is M; else the step is a U
//   W <- W - weight_decay * a * W - step                                       (decoupled decay)
// The means over rows and over columns give the paper's R C / (1^T R) (sums) with smaller numbers.
// The relative step is capped by `learning_rate` (and its schedule), as in torch.optim.Adafactor
// (torch >= 2.5): the paper's min(1e-2, 1 / sqrt(t)) at the default learning rate 0.01. HF's
// warmup_init is left out (optimizer.warmup_steps warms any optimizer up). State per weight: R and
// C (rows + columns floats) or V (n floats), then M (n floats) when beta1 > 0. The norms span whole
// tensors, so the state is not element-wise: replicated optimizer-state sharding refuses it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "core/optim/hyper_params.hpp"
#include "core/optim/optimizer.hpp"

namespace iputrain::optim {

namespace {
namespace impl_adafactor {

//! A weight as the kernel walks it: `batch` matrices of rows x cols (a vector: 1 x 1 x n, unfactored).
struct Dims {
  int64_t batch = 1, rows = 1, cols = 1;
  bool factored = false;
};

Dims dims_of(std::span<const int64_t> shape, int64_t size) {
  Dims d;
  if (shape.size() < 2) {
    d.cols = size;
    return d;
  }
  d.factored = true;
  d.rows = shape[shape.size() - 2];
  d.cols = shape[shape.size() - 1];
  d.batch = d.rows * d.cols > 0 ? size / (d.rows * d.cols) : 0;
  return d;
}

double rms(const float* x, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  }
  return n > 0 ? std::sqrt(sum / static_cast<double>(n)) : 0.0;
}

class Adafactor final : public Optimizer {
 public:
  explicit Adafactor(const OptimizerSettings& o)
      : beta2_decay_(o.param("beta2_decay")),
        epsilon1_(static_cast<float>(o.param("epsilon1"))),
        epsilon2_(o.param("epsilon2")),
        clip_(o.param("clip_threshold")),
        beta1_(static_cast<float>(o.param("beta1"))),
        weight_decay_(o.param("weight_decay")),
        relative_step_(o.param("relative_step") != 0),
        scale_parameter_(o.param("scale_parameter") != 0) {}

  void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) override {
    const double t = static_cast<double>(step);
    const auto b2 = static_cast<float>(1.0 - std::pow(t, beta2_decay_));
    const double rho = relative_step_ ? std::min(static_cast<double>(lr), 1.0 / std::sqrt(t)) : lr;
    reserve(params);
    for (const ParamSlot& p : params) {
      const Dims d = dims_of(p.shape, p.size);
      float* u = scratch_.data();
      if (d.factored) {
        factored(p, d, b2, grad_scale, u);
      } else {
        unfactored(p, b2, grad_scale, u);
      }
      const double alpha = rho * (scale_parameter_ ? std::max(epsilon2_, rms(p.weights, p.size)) : 1.0);
      const double clip = std::max(1.0, rms(u, p.size) / clip_);
      const auto scale = static_cast<float>(alpha / clip);
      const auto shrink = static_cast<float>(weight_decay_ * alpha);
      float* m = beta1_ > 0 ? p.state + second_moment_floats(d) : nullptr;
      for (int64_t i = 0; i < p.size; ++i) {
        float s = scale * u[i];
        if (m != nullptr) {
          m[i] = beta1_ * m[i] + (1.0f - beta1_) * s;
          s = m[i];
        }
        p.weights[i] = p.weights[i] - shrink * p.weights[i] - s;
      }
    }
  }

  void reserve(const std::vector<ParamSlot>& params) override {
    for (const ParamSlot& p : params) {
      if (scratch_.size() < static_cast<size_t>(p.size)) {
        scratch_.resize(static_cast<size_t>(p.size));
      }
    }
  }

 private:
  static int64_t second_moment_floats(const Dims& d) { return d.factored ? d.batch * (d.rows + d.cols) : d.cols; }

  // R, C and U = g / sqrt(R C / mean(R)) of each matrix.
  void factored(const ParamSlot& p, const Dims& d, float b2, float grad_scale, float* u) const {
    const float keep = 1.0f - b2;
    const auto inv_cols = static_cast<float>(1.0 / static_cast<double>(d.cols));
    const auto inv_rows = static_cast<float>(1.0 / static_cast<double>(d.rows));
    for (int64_t b = 0; b < d.batch; ++b) {
      const float* g = p.grad + b * d.rows * d.cols;
      float* row = p.state + b * d.rows;
      float* col = p.state + d.batch * d.rows + b * d.cols;
      float* ub = u + b * d.rows * d.cols;
      // The squared gradients' means along each row, then along each column (kept in U).
      std::fill(ub, ub + d.cols, 0.0f);
      for (int64_t i = 0; i < d.rows; ++i) {
        float sum = 0;
        for (int64_t j = 0; j < d.cols; ++j) {
          const float gij = grad_scale * g[i * d.cols + j];
          const float sq = gij * gij + epsilon1_;
          sum += sq;
          ub[j] += sq;
        }
        row[i] = b2 * row[i] + keep * (sum * inv_cols);
      }
      for (int64_t j = 0; j < d.cols; ++j) {
        col[j] = b2 * col[j] + keep * (ub[j] * inv_rows);
      }
      float row_mean = 0;
      for (int64_t i = 0; i < d.rows; ++i) {
        row_mean += row[i];
      }
      row_mean *= inv_rows;
      for (int64_t i = 0; i < d.rows; ++i) {
        const float r = 1.0f / std::sqrt(row[i] / row_mean);
        for (int64_t j = 0; j < d.cols; ++j) {
          ub[i * d.cols + j] = grad_scale * g[i * d.cols + j] * r / std::sqrt(col[j]);
        }
      }
    }
  }

  // V and U = g / sqrt(V).
  void unfactored(const ParamSlot& p, float b2, float grad_scale, float* u) const {
    const float keep = 1.0f - b2;
    for (int64_t i = 0; i < p.size; ++i) {
      const float g = grad_scale * p.grad[i];
      p.state[i] = b2 * p.state[i] + keep * (g * g + epsilon1_);
      u[i] = g / std::sqrt(p.state[i]);
    }
  }

  double beta2_decay_;
  float epsilon1_;
  double epsilon2_, clip_;
  float beta1_;
  double weight_decay_;
  bool relative_step_, scale_parameter_;
  std::vector<float> scratch_;  // the update U of one tensor
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Adafactor>(o); }

// Row and column averages of a matrix's squared gradients (a vector keeps them whole), then the
// first moment when beta1 > 0.
std::vector<Shape> state(const Shape& weight, const OptimizerSettings& o) {
  std::vector<Shape> out;
  if (weight.size() >= 2) {
    out.emplace_back(weight.begin(), weight.end() - 1);  // R: one per row
    Shape cols(weight.begin(), weight.end() - 2);
    cols.push_back(weight.back());
    out.push_back(cols);  // C: one per column
  } else {
    out.push_back(weight);  // V
  }
  if (o.param("beta1") > 0) {
    out.push_back(weight);  // M
  }
  return out;
}

constexpr HyperParam kBeta2Decay{"beta2_decay", "Exponent c of the second-moment decay 1 - t^c at update t.", -0.8,
                                 ParamRange{-std::numeric_limits<double>::infinity(), false, 0, true}};
constexpr HyperParam kEpsilon1{"epsilon1", "Added to the squared gradients before they are averaged.", 1e-30,
                               hyper::kPositive};
constexpr HyperParam kEpsilon2{"epsilon2", "Floor of the weights' RMS that scales the step.", 1e-3, hyper::kPositive};
constexpr HyperParam kClip{"clip_threshold", "An update whose RMS exceeds it is scaled down to it.", 1.0,
                           hyper::kPositive};
constexpr HyperParam kRelativeStep{
    "relative_step", "Step at most 1/sqrt(t): min(learning_rate, 1/sqrt(t)) at update t.", 1, {}, true};
constexpr HyperParam kScaleParameter{
    "scale_parameter", "Scale the step by the weights' RMS (at least epsilon2).", 1, {}, true};

}  // namespace impl_adafactor
}  // namespace

const OptimizerDef kAdafactorOptimizer{
    "adafactor",
    {impl_adafactor::kBeta2Decay, impl_adafactor::kEpsilon1, impl_adafactor::kEpsilon2, impl_adafactor::kClip,
     impl_adafactor::kRelativeStep, impl_adafactor::kScaleParameter, with_default(hyper::kBeta1, 0.0),
     hyper::kDecoupledWeightDecay},
    impl_adafactor::state,
    false,
    impl_adafactor::make};

}  // namespace iputrain::optim
