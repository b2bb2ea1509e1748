#include "engine/optim/optimizer.hpp"

#include <fmt/format.h>

#include <utility>

#include "engine/optim/optimizers.hpp"

namespace iputrain::engine {

std::unique_ptr<Optimizer> make_optimizer(const Config& config) {
  using Maker = std::unique_ptr<Optimizer> (*)(const OptimizerSection&);
  static const std::pair<const char*, Maker> kOptimizers[] = {
      {"sgd", make_sgd},   {"momentum", make_momentum}, {"adam", make_adam},       {"adamw", make_adamw},
      {"lamb", make_lamb}, {"rmsprop", make_rmsprop},   {"adagrad", make_adagrad},
  };
  const OptimizerSection& o = config.optimizer;
  for (const auto& [name, make] : kOptimizers) {
    if (o.type == name) {
      return make(o);
    }
  }
  config.fail_at("optimizer.type", fmt::format("unknown optimizer '{}'", o.type),
                 "use sgd, momentum, adam, adamw, lamb, rmsprop or adagrad");
}

}  // namespace iputrain::engine
