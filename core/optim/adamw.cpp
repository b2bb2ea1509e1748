// AdamW (torch.optim.AdamW): the weights shrink by lr * wd before an Adam step on the bare
// gradient, so the decay is not rescaled by Adam's per-element step sizes.
#include "core/optim/adam.hpp"
#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

namespace {
namespace impl_adamw {

using namespace optim_detail;

class AdamW final : public Optimizer {
 public:
  explicit AdamW(const OptimizerSettings& o)
      : hyper_{static_cast<float>(o.param("beta1")), static_cast<float>(o.param("beta2")),
               static_cast<float>(o.param("epsilon"))},
        weight_decay_(o.param("weight_decay")) {}

  void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) override {
    const auto shrink = static_cast<float>(1.0 - static_cast<double>(lr) * weight_decay_);
    for_each_block(params, [&](const ParamSlot& p) {
      weights(p) *= shrink;
      adam_step(p, hyper_, step, lr, grad_scale, 0.0f);
    });
  }

 private:
  AdamHyper hyper_;
  double weight_decay_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<AdamW>(o); }

}  // namespace impl_adamw
}  // namespace

const OptimizerDef kAdamWOptimizer{"adamw",
                                   {hyper::kBeta1, hyper::kBeta2, hyper::kEpsilon, hyper::kDecoupledWeightDecay},
                                   weight_copies<2>,
                                   true,
                                   impl_adamw::make};

}  // namespace iputrain::optim
