// Floating-point traps (`ipu.floating_point_behaviour.inv|div0|oflo`): after each kernel, the
// first result that holds a NaN or an infinity its operands did not hold stops the run with a
// located error naming the op, its stage and the micro-batch.
//
// Detection is by the op's result, not by the IEEE exception flags alone: Eigen's vectorised
// log, sqrt and exp make their NaN and infinities by selecting constants, so they raise no flag
// (log(-1), sqrt(-1) and exp(100) leave FE_INVALID and FE_OVERFLOW clear), while its rsqrt(0)
// raises FE_INVALID for a result that is a plain infinity. The flags of the worker thread (each
// virtual IPU runs its kernels on one thread) are still read to tell a division by zero from an
// overflow when an arithmetic kernel makes an infinity.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "core/ir/graph.hpp"
#include "iputrain/settings.hpp"

namespace iputrain::engine {

//! The classes of IEEE exception that can be trapped (bit flags).
enum FpClass : uint8_t {
  kFpInvalid = 1,     //!< a NaN from operands without NaN (0/0, log(-1), inf - inf, 0 * inf)
  kFpDivByZero = 2,   //!< an exact infinity from finite operands (x/0, log(0), rsqrt(0))
  kFpOverflow = 4,    //!< a finite result too large for f32 (exp(100), 1e30 * 1e30)
};

//! Which classes a run traps, from the config.
struct FpTraps {
  uint8_t mask = 0;      //!< FpClass bits; 0: no trap, and no per-op work
  bool set_all = false;  //!< the flags came from `set_all` (the hint says to clear it too)

  explicit operator bool() const { return mask != 0; }
};

//! The traps the run's `ipu.floating_point_behaviour` asks for (their lines have settled `set_all`).
FpTraps fp_traps(const Settings& s);

//! Where the kernels run, for the message.
struct FpTrapSite {
  FpTraps traps;
  std::string_view run = "training";  //!< "training", "evaluation" or "prediction"
  int64_t step = 0;                   //!< 1-based: the weight update, or the batch of eval/predict
  int64_t micro_batch = -1;           //!< within the step and replica (-1: not a training run)
  int32_t replica = -1;
  int64_t global = -1;                //!< global micro-batch index (ExecContext::step)
};

//! Clears the thread's IEEE exception flags before a kernel.
void fp_trap_arm();

//! After node `v`'s kernel wrote `out` from `inputs`: throws Error(Runtime), located at the node,
//! if `out` holds a NaN that no input holds (invalid) or an infinity while every input is finite
//! (division by zero or overflow, told apart by the thread's flags and the op), and the site
//! traps that class. Integer and boolean results are not checked.
void fp_trap_check(const ir::Graph& g, ir::ValueId v, std::span<const ir::Tensor> inputs, const ir::Tensor& out,
                   const FpTrapSite& site);

}  // namespace iputrain::engine
