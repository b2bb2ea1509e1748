// Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms"), which torch lacks:
//   c = b1 m + (1 - b1) g;  w <- w (1 - lr wd) - lr sign(c);  m <- b2 m + (1 - b2) g
// The step is the sign of an interpolation of the momentum and the gradient, so every weight
// moves by exactly lr (0 where c is 0); the momentum is updated after, with its own decay b2. The
// decay is decoupled, as in adamw: the weights shrink apart from the sign step. State: m.
#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

namespace {
namespace impl_lion {

using namespace optim_detail;

class Lion final : public Optimizer {
 public:
  explicit Lion(const OptimizerSettings& o)
      : beta1_(static_cast<float>(o.param("beta1"))),
        mix1_(static_cast<float>(1.0 - o.param("beta1"))),
        beta2_(static_cast<float>(o.param("beta2"))),
        mix2_(static_cast<float>(1.0 - o.param("beta2"))),
        weight_decay_(o.param("weight_decay")) {}

  void update(const std::vector<ParamSlot>& params, int64_t, float lr, float grad_scale) override {
    // In double, as adamw: 1 - lr * wd rounds once.
    const auto shrink = static_cast<float>(1.0 - static_cast<double>(lr) * weight_decay_);
    for_each_block(params, [&](const ParamSlot& p) {
      Vec w = weights(p);
      Vec m = state(p, 0);
      const auto g = grad_scale * grad(p);
      w = shrink * w - lr * (beta1_ * m + mix1_ * g).sign();
      m = beta2_ * m + mix2_ * g;
    });
  }

 private:
  float beta1_, mix1_, beta2_, mix2_;
  double weight_decay_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Lion>(o); }

}  // namespace impl_lion
}  // namespace

const OptimizerDef kLionOptimizer{"lion",
                                  {hyper::kBeta1, with_default(hyper::kBeta2, 0.99), hyper::kDecoupledWeightDecay},
                                  weight_copies<1>,
                                  true,
                                  impl_lion::make};

}  // namespace iputrain::optim
