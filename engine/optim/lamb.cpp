// LAMB (You et al., "Large Batch Optimization for Deep Learning", Algorithm 2), with the paper's
// bias correction and the identity as scaling function phi. Per parameter tensor:
//   m <- b1 m + (1 - b1) g;  v <- b2 v + (1 - b2) g^2
//   u = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + wd * w     (decoupled weight decay)
//   w <- w - lr * (|w| / |u|) * u
// The trust ratio |w| / |u| is 1 when either norm is 0 (a fresh zero bias, a zero update), as in
// the PyTorch implementations in NVIDIA apex (FusedLAMB) and timm. torch.optim has no LAMB.
#include <cmath>

#include "engine/optim/eigen_maps.hpp"
#include "engine/optim/optimizers.hpp"

namespace iputrain::engine {

namespace {

using namespace optim_detail;

class Lamb final : public Optimizer {
 public:
  explicit Lamb(const OptimizerSection& o)
      : beta1_(static_cast<float>(o.beta1)),
        beta2_(static_cast<float>(o.beta2)),
        epsilon_(static_cast<float>(o.epsilon)),
        weight_decay_(static_cast<float>(o.weight_decay)) {}

  void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) override {
    const double t = static_cast<double>(step);
    const auto correction1 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta1_), t));
    const auto correction2 = static_cast<float>(1.0 - std::pow(static_cast<double>(beta2_), t));
    const auto c1 = static_cast<float>(1.0 - static_cast<double>(beta1_));
    const auto c2 = static_cast<float>(1.0 - static_cast<double>(beta2_));
    for (const ParamSlot& p : params) {
      Vec w = weights(p);
      Vec m = state(p, 0);
      Vec v = state(p, 1);
      const auto g = grad_scale * grad(p);
      m = beta1_ * m + c1 * g;
      v = beta2_ * v + c2 * g.square();
      // The update direction is needed twice (its norm, then the step); recomputing it from m and
      // v instead of storing it keeps the kernel free of scratch memory.
      const auto u = (m / correction1) / ((v / correction2).sqrt() + epsilon_) + weight_decay_ * w;
      const double w_norm = std::sqrt(w.cast<double>().square().sum());
      const double u_norm = std::sqrt(u.cast<double>().square().sum());
      const double trust = w_norm > 0 && u_norm > 0 ? w_norm / u_norm : 1.0;
      w -= static_cast<float>(static_cast<double>(lr) * trust) * u;
    }
  }
  int32_t state_slots() const override { return 2; }

 private:
  float beta1_, beta2_, epsilon_, weight_decay_;
};

}  // namespace

std::unique_ptr<Optimizer> make_lamb(const OptimizerSection& o) {
  return std::make_unique<Lamb>(o);
}

}  // namespace iputrain::engine
