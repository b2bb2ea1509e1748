// Plain gradient descent (torch.optim.SGD without momentum): w <- w - lr * (g + wd * w).
#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

namespace {
namespace impl_sgd {

using namespace optim_detail;

class Sgd final : public Optimizer {
 public:
  explicit Sgd(const OptimizerSettings& o) : weight_decay_(static_cast<float>(o.param("weight_decay"))) {}

  void update(const std::vector<ParamSlot>& params, int64_t, float lr, float grad_scale) override {
    for_each_block(params, [&](const ParamSlot& p) {
      Vec w = weights(p);
      w -= lr * (grad_scale * grad(p) + weight_decay_ * w);
    });
  }

 private:
  float weight_decay_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Sgd>(o); }

}  // namespace impl_sgd
}  // namespace

const OptimizerDef kSgdOptimizer{"sgd", {hyper::kWeightDecay}, no_state, true, impl_sgd::make};

}  // namespace iputrain::optim
