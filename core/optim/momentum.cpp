// Heavy-ball and Nesterov momentum, as torch.optim.SGD with momentum (dampening 0):
//   d = g + wd * w;  b <- mu * b + d;  w <- w - lr * b            (heavy ball)
//                                      w <- w - lr * (d + mu * b)  (Nesterov)
// torch starts the buffer at the first gradient; with a zeroed buffer mu * 0 + d is the same.
// State: the velocity buffer b.
#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

namespace {
namespace impl_momentum {

using namespace optim_detail;

class Momentum final : public Optimizer {
 public:
  explicit Momentum(const OptimizerSettings& o)
      : momentum_(static_cast<float>(o.param("momentum"))),
        weight_decay_(static_cast<float>(o.param("weight_decay"))),
        nesterov_(o.param("use_nesterov") != 0) {}

  void update(const std::vector<ParamSlot>& params, int64_t, float lr, float grad_scale) override {
    for_each_block(params, [&](const ParamSlot& p) {
      Vec w = weights(p);
      Vec buf = state(p, 0);
      const auto d = grad_scale * grad(p) + weight_decay_ * w;
      buf = momentum_ * buf + d;
      if (nesterov_) {
        w -= lr * (d + momentum_ * buf);
      } else {
        w -= lr * buf;
      }
    });
  }

 private:
  float momentum_;
  float weight_decay_;
  bool nesterov_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Momentum>(o); }

}  // namespace impl_momentum
}  // namespace

const OptimizerDef kMomentumOptimizer{
    "momentum", {hyper::kMomentum, hyper::kNesterov, hyper::kWeightDecay}, weight_copies<1>, true, impl_momentum::make};

}  // namespace iputrain::optim
