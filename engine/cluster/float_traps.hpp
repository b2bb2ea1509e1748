// ipu.floating_point_behaviour.inv / div0 / oflo: the first NaN or infinity an op produces stops the
// run with an error naming the op, its stage, the micro-batch and where the model wrote it.
//
// "Produces" is decided on the op's result, after any half rounding: a NaN (invalid operation) or
// an infinity whose operands were all finite. An infinity is a division by zero when the kernel
// raised the IEEE divide-by-zero flag, an overflow otherwise. Values that only pass a NaN or an
// infinity along are not blamed, and an IEEE flag raised inside a kernel whose result is finite
// (an exp that overflows inside a sigmoid, say) is not an error: the result is what is checked.
#pragma once

#include <cstdint>
#include <string>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"

namespace iputrain::engine {

class FloatTraps {
 public:
  explicit FloatTraps(const FloatBehaviour& fp) : inv_(fp.inv), div0_(fp.div0), oflo_(fp.oflo) {}
  //! True if any of the three traps is on (otherwise the engine skips every check).
  bool any() const { return inv_ || div0_ || oflo_; }

  //! Clears the IEEE flags before a kernel runs.
  void before() const;
  //! Checks `node`'s result `out` (operands `in`) after its kernel: throws Error(Runtime) located at
  //! the node when a trapped kind of non-finite value appeared. `micro_batch` is the global index.
  void after(const ir::Graph& graph, const ir::Node& node, const ir::Tensor& out, const ir::Tensor* in,
             uint32_t inputs, int64_t micro_batch) const;

 private:
  bool inv_;
  bool div0_;
  bool oflo_;
};

}  // namespace iputrain::engine
