// Adam (torch.optim.Adam, amsgrad off) with L2 weight decay added to the gradient.
#include "core/optim/adam.hpp"

#include <cmath>

#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

using namespace optim_detail;

void adam_step(const ParamSlot& p, const AdamHyper& h, int64_t step, float lr, float grad_scale, float l2) {
  // The bias corrections in double, as torch computes them from the Python step count.
  const double t = static_cast<double>(step);
  const double correction1 = 1.0 - std::pow(static_cast<double>(h.beta1), t);
  const float step_size = static_cast<float>(lr / correction1);
  const float correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(static_cast<double>(h.beta2), t)));
  const float c1 = static_cast<float>(1.0 - static_cast<double>(h.beta1));
  const float c2 = static_cast<float>(1.0 - static_cast<double>(h.beta2));

  Vec w = weights(p);
  Vec m = state(p, 0);
  Vec v = state(p, 1);
  const auto g = grad_scale * grad(p) + l2 * w;
  m = h.beta1 * m + c1 * g;
  v = h.beta2 * v + c2 * g.square();
  w -= step_size * (m / (v.sqrt() / correction2_sqrt + h.epsilon));
}

namespace {
namespace impl_adam {

class Adam final : public Optimizer {
 public:
  explicit Adam(const OptimizerSettings& o)
      : hyper_{static_cast<float>(o.param("beta1")), static_cast<float>(o.param("beta2")),
               static_cast<float>(o.param("epsilon"))},
        weight_decay_(static_cast<float>(o.param("weight_decay"))) {}

  void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) override {
    for_each_block(params, [&](const ParamSlot& p) { adam_step(p, hyper_, step, lr, grad_scale, weight_decay_); });
  }

 private:
  AdamHyper hyper_;
  float weight_decay_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Adam>(o); }

}  // namespace impl_adam
}  // namespace

const OptimizerDef kAdamOptimizer{"adam",
                                  {hyper::kBeta1, hyper::kBeta2, hyper::kEpsilon, hyper::kWeightDecay},
                                  weight_copies<2>,
                                  true,
                                  impl_adam::make};

}  // namespace iputrain::optim
