#include "engine/optim/optimizer.hpp"

#include "engine/optim/optimizers.hpp"
#include "iputrain/error.hpp"

namespace iputrain::engine {

std::unique_ptr<Optimizer> make_optimizer(const OptimizerSettings& o) {
  switch (o.kind) {
    case OptimizerKind::Sgd:
      return make_sgd(o);
    case OptimizerKind::Momentum:
      return make_momentum(o);
    case OptimizerKind::Adam:
      return make_adam(o);
    case OptimizerKind::AdamW:
      return make_adamw(o);
    case OptimizerKind::Lamb:
      return make_lamb(o);
    case OptimizerKind::RmsProp:
      return make_rmsprop(o);
    case OptimizerKind::Adagrad:
      return make_adagrad(o);
  }
  throw Error(ErrorKind::Internal, "make_optimizer: an optimizer kind without an implementation");
}

}  // namespace iputrain::engine
