#include "engine/optimizer.hpp"

#include <Eigen/Core>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

using Vec = Eigen::Map<Eigen::ArrayXf>;
using ConstVec = Eigen::Map<const Eigen::ArrayXf>;

//! Plain gradient descent: w <- w - lr * g.
class Sgd final : public Optimizer {
 public:
  explicit Sgd(float lr) : lr_(lr) {}
  void update(const std::vector<ParamSlot>& params, int64_t) override {
    for (const ParamSlot& p : params) {
      Vec(p.weights, p.size) -= lr_ * ConstVec(p.grad, p.size);
    }
  }
  int64_t state_bytes_per_element() const override { return 0; }

 private:
  float lr_;
};

}  // namespace

std::unique_ptr<Optimizer> make_optimizer(const Config& config) {
  const auto& o = config.optimizer;
  if (o.type == "sgd") {
    return std::make_unique<Sgd>(static_cast<float>(o.learning_rate));
  }
  config.fail_at("optimizer.type", "optimizer '" + o.type + "' is not implemented yet by this engine",
                 "this version implements: sgd");
}

}  // namespace iputrain::engine
