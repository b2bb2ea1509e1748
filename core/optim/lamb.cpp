// LAMB (You et al., "Large Batch Optimization for Deep Learning", Algorithm 2), with the paper's
// bias correction and the identity as scaling function phi. Per parameter tensor:
//   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
//   u = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + wd * w     (decoupled weight decay)
//   w <- w - lr * (|w| / |u|) * u
// The trust ratio |w| / |u| is 1 when either norm is 0 (a fresh zero bias, a zero update), as in
// the PyTorch implementations in NVIDIA apex (FusedLAMB) and timm. torch.optim has no LAMB.
// Both norms are sums of squares taken grain by grain (tensor_sums.hpp), so a replica that
// updates one block of each tensor (sharded optimizer state) gets the whole tensors' norms, and
// the same bits as one that updates whole tensors.
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"
#include "core/optim/tensor_sums.hpp"

namespace iputrain::optim {

namespace {
namespace impl_lamb {

using namespace optim_detail;

class Lamb final : public Optimizer {
 public:
  explicit Lamb(const OptimizerSettings& o)
      : beta1_(static_cast<float>(o.param("beta1"))),
        beta2_(static_cast<float>(o.param("beta2"))),
        epsilon_(static_cast<float>(o.param("epsilon"))),
        weight_decay_(static_cast<float>(o.param("weight_decay"))) {}

  void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) override {
    LocalSums whole;
    update_blocks(params, step, lr, grad_scale, whole);
  }

  // Two passes: the moments and the grains' squares of w and u, then (once every replica's
  // grains are in: the norms are over whole tensors) the step.
  void update_blocks(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale,
                     TensorSums& sums) override {
    const double t = static_cast<double>(step);
    const auto correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1_), t));
    const auto correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta2_), t));
    const auto c1 = static_cast<float>(1.0 - static_cast<double>(beta1_));
    const auto c2 = static_cast<float>(1.0 - static_cast<double>(beta2_));
    reserve(params);
    double* out = norms_.grains();
    for (const ParamSlot& p : params) {
      Vec m = state(p, 0);
      Vec v = state(p, 1);
      const auto g = grad_scale * grad(p);
      m = beta1_ * m + c1 * g;
      v = beta2_ * v + c2 * g.square();
      grains_of(p.weights, p.size, out);
      out += shard_grains(p.size);
      // The update direction grain by grain into a small buffer, for its squares only: the step
      // below recomputes it from m and v, which keeps the kernel free of scratch memory.
      const float* mp = p.state;
      const float* vp = p.state + p.size;
      for (int64_t a = 0; a < p.size; a += kShardGrain) {
        const int64_t n = std::min(kShardGrain, p.size - a);
        std::array<float, kShardGrain> u{};
        for (int64_t i = 0; i < n; ++i) {
          u[static_cast<size_t>(i)] = (mp[a + i] / correction1) / (std::sqrt(vp[a + i] / correction2) + epsilon_) +
                                      weight_decay_ * p.weights[a + i];
        }
        *out++ = grain_squares(u.data(), n);
      }
    }
    norms_.complete(params, sums);
    for (size_t k = 0; k < params.size(); ++k) {
      const ParamSlot& p = params[k];
      Vec w = weights(p);
      Vec m = state(p, 0);
      Vec v = state(p, 1);
      const auto u = (m / correction1) / ((v / correction2).sqrt() + epsilon_) + weight_decay_ * w;
      const double w_norm = std::sqrt(norms_.total(k, 0));
      const double u_norm = std::sqrt(norms_.total(k, 1));
      const double trust = w_norm > 0 && u_norm > 0 ? w_norm / u_norm : 1.0;
      w -= static_cast<float>(static_cast<double>(lr) * trust) * u;
    }
  }

  void reserve(const std::vector<ParamSlot>& params) override { norms_.reserve(params); }

 private:
  float beta1_, beta2_, epsilon_, weight_decay_;
  PairNorms norms_;  // per slot: |w|^2 and |u|^2
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Lamb>(o); }

}  // namespace impl_lamb
}  // namespace

const OptimizerDef kLambOptimizer{"lamb",
                                  {hyper::kBeta1, hyper::kBeta2, hyper::kEpsilon, hyper::kDecoupledWeightDecay},
                                  weight_copies<2>,
                                  true,
                                  impl_lamb::make,
                                  // Its first pass updates m and v as the step would, then reads w and
                                  // recomputes u (about 6 FLOPs) for their squares (2 each); the step
                                  // reads m, v and w again to recompute u.
                                  {.norms = 2, .arrays_read = 3, .flops = 10}};

}  // namespace iputrain::optim
