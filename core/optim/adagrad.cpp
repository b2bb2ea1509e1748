// Adagrad as torch.optim.Adagrad (no lr decay): g = grad + wd * w;  s <- s + g^2;
// w <- w - lr * g / (sqrt(s) + eps). The sums start at `initial_accumulator_value`. State: s.
#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

namespace {
namespace impl_adagrad {

using namespace optim_detail;

class Adagrad final : public Optimizer {
 public:
  explicit Adagrad(const OptimizerSettings& o)
      : initial_(static_cast<float>(o.param("initial_accumulator_value"))),
        epsilon_(static_cast<float>(o.param("epsilon"))),
        weight_decay_(static_cast<float>(o.param("weight_decay"))) {}

  void init_state(const ParamSlot& p) const override { state(p, 0).setConstant(initial_); }

  void update(const std::vector<ParamSlot>& params, int64_t, float lr, float grad_scale) override {
    for_each_block(params, [&](const ParamSlot& p) {
      Vec w = weights(p);
      Vec sum = state(p, 0);
      const auto g = grad_scale * grad(p) + weight_decay_ * w;
      sum += g.square();
      w -= lr * (g / (sum.sqrt() + epsilon_));
    });
  }

 private:
  float initial_, epsilon_, weight_decay_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Adagrad>(o); }

constexpr HyperParam kInitial{"initial_accumulator_value", "Starting value of the squared-gradient sums.", 0.1,
                              hyper::kNonNegative};

}  // namespace impl_adagrad
}  // namespace

const OptimizerDef kAdagradOptimizer{"adagrad",
                                     {impl_adagrad::kInitial, hyper::kEpsilon, hyper::kWeightDecay},
                                     weight_copies<1>,
                                     true,
                                     impl_adagrad::make};

}  // namespace iputrain::optim
