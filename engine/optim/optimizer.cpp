#include "engine/optim/optimizer.hpp"

#include "core/optim_table.hpp"
#include "engine/optim/optimizers.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

std::unique_ptr<Optimizer> make_optimizer(const OptimizerSettings& o) {
  for (const auto& [kind, make] : kOptimizerFactories) {
    if (kind == o.kind) {
      std::unique_ptr<Optimizer> optimizer = make(o);
      optimizer->state_slots_ = optimizer_state_slots(o);
      return optimizer;
    }
  }
  throw Error(ErrorKind::Internal, "make_optimizer: optimizer \"" + std::string(optimizer_row(o.kind).name) +
                                       "\" has no factory in engine/optim/optimizers.hpp");
}

}  // namespace iputrain::engine
