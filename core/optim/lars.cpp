// LARS (You, Gitman and Ginsburg, "Large Batch Training of Convolutional Networks", 2017) with
// heavy-ball momentum, the rule of MLPerf's ResNet-50 references (TensorFlow's LARSOptimizer with
// classic momentum, the learning rate inside the velocity). Per parameter tensor, d = g + wd * w:
//   trust = eta * |w| / (|g| + wd * |w| + eps)      (1 when |w| or |g| is 0)
//   v <- mu * v + lr * trust * d
//   w <- w - v                                      (Nesterov: w <- w - (mu * v + lr * trust * d))
// A tensor of fewer than two dimensions (a bias, a norm's scale or offset) takes neither the trust
// ratio nor the decay unless adapt_vectors is set: MLPerf's references leave batch norm and biases
// out of both. The norms are sums of squares taken grain by grain (tensor_sums.hpp), so a replica
// that updates one block of each tensor gets the whole tensors' norms and the same bits.
#include <cmath>
#include <vector>

#include "core/optim/eigen_maps.hpp"
#include "core/optim/hyper_params.hpp"
#include "core/optim/tensor_sums.hpp"

namespace iputrain::optim {

namespace {
namespace impl_lars {

using namespace optim_detail;

constexpr HyperParam kTrustCoefficient{"trust_coefficient",
                                       "eta, the factor of each tensor's ratio of weight norm to gradient norm.", 0.001,
                                       hyper::kPositive};
constexpr HyperParam kAdaptVectors{
    "adapt_vectors",
    "Give tensors of fewer than two dimensions (biases, norm scales) the trust ratio and the decay too.",
    0,
    {},
    true};

class Lars final : public Optimizer {
 public:
  explicit Lars(const OptimizerSettings& o)
      : momentum_(static_cast<float>(o.param("momentum"))),
        weight_decay_(static_cast<float>(o.param("weight_decay"))),
        epsilon_(o.param("epsilon")),
        eta_(o.param("trust_coefficient")),
        nesterov_(o.param("use_nesterov") != 0),
        adapt_vectors_(o.param("adapt_vectors") != 0) {}

  void update(const std::vector<ParamSlot>& params, int64_t step, float lr, float grad_scale) override {
    LocalSums whole;
    update_blocks(params, step, lr, grad_scale, whole);
  }

  // Two passes: the grains' squares of w and g, then (once every replica's grains are in: the
  // norms are over whole tensors) the step.
  void update_blocks(const std::vector<ParamSlot>& params, int64_t, float lr, float grad_scale,
                     TensorSums& sums) override {
    reserve(params);
    double* out = norms_.grains();
    for (const ParamSlot& p : params) {
      grains_of(p.weights, p.size, out);
      out += shard_grains(p.size);
      grains_of(p.grad, p.size, out);
      out += shard_grains(p.size);
    }
    norms_.complete(params, sums);
    for (size_t k = 0; k < params.size(); ++k) {
      const ParamSlot& p = params[k];
      const bool adapted = adapt_vectors_ || p.shape.size() >= 2;
      const float wd = adapted ? weight_decay_ : 0.0f;
      double trust = 1.0;
      if (adapted) {
        const double w_norm = std::sqrt(norms_.total(k, 0));
        const double g_norm = std::abs(static_cast<double>(grad_scale)) * std::sqrt(norms_.total(k, 1));
        if (w_norm > 0 && g_norm > 0) {
          trust = eta_ * w_norm / (g_norm + static_cast<double>(wd) * w_norm + epsilon_);
        }
      }
      const auto rate = static_cast<float>(static_cast<double>(lr) * trust);
      Vec w = weights(p);
      Vec v = state(p, 0);
      const auto d = grad_scale * grad(p) + wd * w;
      v = momentum_ * v + rate * d;
      if (nesterov_) {
        w -= momentum_ * v + rate * d;
      } else {
        w -= v;
      }
    }
  }

  void reserve(const std::vector<ParamSlot>& params) override { norms_.reserve(params); }

 private:
  float momentum_, weight_decay_;
  double epsilon_, eta_;
  bool nesterov_, adapt_vectors_;
  PairNorms norms_;  // per slot: |w|^2 and |g|^2
};

std::unique_ptr<Optimizer> make(const OptimizerSettings& o) { return std::make_unique<Lars>(o); }

}  // namespace impl_lars
}  // namespace

const OptimizerDef kLarsOptimizer{"lars",
                                  {hyper::kMomentum, hyper::kNesterov, hyper::kEpsilon, hyper::kWeightDecay,
                                   impl_lars::kTrustCoefficient, impl_lars::kAdaptVectors},
                                  weight_copies<1>,
                                  true,
                                  impl_lars::make,
                                  // The squares of w and g (2 FLOPs each), read before the step.
                                  {.norms = 2, .arrays_read = 2, .flops = 4}};

}  // namespace iputrain::optim
