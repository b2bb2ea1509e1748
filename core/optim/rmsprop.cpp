// RMSprop as torch.optim.RMSprop (no momentum), `rho` being torch's `alpha`:
//   g = grad + wd * w;  s <- rho s + (1 - rho) g^2
//   plain:     w <- w - lr * g / (sqrt(s) + eps)
//   centered:  a <- rho a + (1 - rho) g;  w <- w - lr * g / (sqrt(s - a^2) + eps)
// eps is added after the square root (TensorFlow adds it inside). State: s, and a when centered.
#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"

namespace iputrain::optim {

namespace {
namespace impl_rmsprop {

using namespace optim_detail;

class RmsProp final : public Optimizer {
 public:
  explicit RmsProp(const OptimizerSettings& o)
      : rho_(static_cast<float>(o.param("rho"))),
        keep_(static_cast<float>(1.0 - o.param("rho"))),
        epsilon_(static_cast<float>(o.param("epsilon"))),
        weight_decay_(static_cast<float>(o.param("weight_decay"))),
        centered_(o.param("centered") != 0) {}

  void update(const std::vector<ParamSlot>& params, int64_t, float lr, float grad_scale) override {
    for_each_block(params, [&](const ParamSlot& p) {
      Vec w = weights(p);
      Vec square_avg = state(p, 0);
      const auto g = grad_scale * grad(p) + weight_decay_ * w;
      square_avg = rho_ * square_avg + keep_ * g.square();
      if (centered_) {
        Vec grad_avg = state(p, 1);
        grad_avg = rho_ * grad_avg + keep_ * g;
        // s - a^2 >= 0 in exact arithmetic; rounding can dip it below 0 when g is constant, and
        // the square root of that would poison the weight with NaN.
        w -= lr * (g / ((square_avg - grad_avg.square()).max(0.0f).sqrt() + epsilon_));
      } else {
        w -= lr * (g / (square_avg.sqrt() + epsilon_));
      }
    });
  }

 private:
  float rho_, keep_, epsilon_, weight_decay_;
  bool centered_;
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<RmsProp>(o); }

// The squared-gradient average, and the gradient's average when centered.
std::vector<Shape> state(const Shape& weight, const OptimizerSettings& o) {
  return std::vector<Shape>(o.param("centered") != 0 ? 2 : 1, weight);
}

constexpr HyperParam kRho{"rho", "Decay of the squared-gradient average.", 0.9, hyper::kDecay};
constexpr HyperParam kCentered{"centered", "Normalise by the gradient's estimated variance.", 0, {}, true};

}  // namespace impl_rmsprop
}  // namespace

const OptimizerDef kRmsPropOptimizer{
    "rmsprop",
    {impl_rmsprop::kRho, impl_rmsprop::kCentered, hyper::kEpsilon, hyper::kWeightDecay},
    impl_rmsprop::state,
    true,
    impl_rmsprop::make};

}  // namespace iputrain::optim
