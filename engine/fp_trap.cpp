#include "engine/fp_trap.hpp"

#include <fmt/format.h>

#include <cfenv>
#include <cstring>

#include "iputrain/error.hpp"

namespace iputrain::engine {

namespace {

constexpr int kFlags = FE_INVALID | FE_DIVBYZERO | FE_OVERFLOW;
constexpr uint32_t kExponent = 0x7f800000u;
constexpr uint32_t kMantissa = 0x007fffffu;

struct Specials {
  bool nan = false;
  bool inf = false;
};

// The common case, every result finite, costs one pass with no branch the compiler cannot
// vectorise.
bool all_finite(const float* p, int64_t n) {
  uint32_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    bad |= static_cast<uint32_t>((bits & kExponent) == kExponent);
  }
  return bad == 0;
}

Specials specials(const ir::Tensor& t) {
  Specials s;
  if (t.type->dtype != DType::F32) {  // f16 / bf16 tensors (a cast's result) hold no f32
    return s;
  }
  const float* p = t.f32();
  for (int64_t i = 0, n = t.numel(); i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, p + i, sizeof bits);
    if ((bits & kExponent) == kExponent) {
      ((bits & kMantissa) != 0 ? s.nan : s.inf) = true;
    }
  }
  return s;
}

const char* flag_key(FpClass c) {
  switch (c) {
    case kFpInvalid: return "ipu.floating_point_behaviour.inv";
    case kFpDivByZero: return "ipu.floating_point_behaviour.div0";
    case kFpOverflow: return "ipu.floating_point_behaviour.oflo";
  }
  return "";
}

const char* what_happened(FpClass c) {
  switch (c) {
    case kFpInvalid: return "an invalid operation (NaN from operands without NaN)";
    case kFpDivByZero: return "a division by zero (an infinity from finite operands)";
    case kFpOverflow: return "an overflow (a finite result beyond the f32 range)";
  }
  return "";
}

const char* advice(FpClass c) {
  switch (c) {
    case kFpInvalid: return "look for 0/0, log or sqrt of a negative, inf - inf or 0 * inf";
    case kFpDivByZero: return "a divisor, or the operand of log or rsqrt, is zero: add a small epsilon";
    case kFpOverflow: return "scale the inputs, lower the learning rate or clip the gradients";
  }
  return "";
}

// Ops with a pole at 0 computed by Eigen's log or rsqrt, which reach it without FE_DIVBYZERO
// (op_list.hpp's `pole`), and the gradients of the ops whose derivative does (`grad_pole`: the
// gradient UnaryGrad names its op in `fn`).
bool eigen_pole(const ir::Node& n) {
  if (op_has(n.op, ir::op_flags::pole)) {
    return true;
  }
  if (ir::op_has(n.op, ir::op_flags::derivative)) {
    return op_has(ir::op_by_name(n.attrs.get_str("fn")), ir::op_flags::grad_pole);
  }
  return false;
}

// An infinity from finite operands: the thread's flags say which for arithmetic kernels; Eigen's
// log and rsqrt raise none (or FE_INVALID) at their pole, and every other op that makes an
// infinity without a flag (exp, the activations built on it) does so by overflowing.
FpClass infinity_class(const ir::Node& n, int flags) {
  if ((flags & FE_DIVBYZERO) != 0) {
    return kFpDivByZero;
  }
  if ((flags & FE_OVERFLOW) != 0) {
    return kFpOverflow;
  }
  return eigen_pole(n) ? kFpDivByZero : kFpOverflow;
}

}  // namespace

FpTraps fp_traps(const Settings& s) {
  FpTraps t;
  t.mask = static_cast<uint8_t>((s.plain.ipu_floating_point_behaviour_inv ? kFpInvalid : 0) |
                                (s.plain.ipu_floating_point_behaviour_div0 ? kFpDivByZero : 0) |
                                (s.plain.ipu_floating_point_behaviour_oflo ? kFpOverflow : 0));
  t.set_all = s.plain.ipu_floating_point_behaviour_set_all;
  return t;
}

void fp_trap_arm() { std::feclearexcept(kFlags); }

void fp_trap_check(const ir::Graph& g, ir::ValueId v, std::span<const ir::Tensor> inputs, const ir::Tensor& out,
                   const FpTrapSite& site) {
  if (out.type->dtype != DType::F32 || all_finite(out.f32(), out.numel())) {
    return;
  }
  const int flags = std::fetestexcept(kFlags);
  const Specials result = specials(out);
  Specials operands;
  for (const ir::Tensor& in : inputs) {
    const Specials s = specials(in);
    operands.nan = operands.nan || s.nan;
    operands.inf = operands.inf || s.inf;
  }
  const ir::Node& n = g.node(v);
  uint8_t found = 0;
  if (result.nan && !operands.nan) {
    found |= kFpInvalid;
  }
  if (result.inf && !operands.nan && !operands.inf) {
    found |= infinity_class(n, flags);
  }
  found &= site.traps.mask;
  if (found == 0) {
    return;  // a value carried from an operand, or a class this run lets through
  }
  const FpClass c = (found & kFpInvalid) != 0     ? kFpInvalid
                    : (found & kFpDivByZero) != 0 ? kFpDivByZero
                                                  : kFpOverflow;
  const std::string stage =
      n.stage >= 0 && static_cast<size_t>(n.stage) < g.stages.size()
          ? fmt::format("stage {} '{}'", n.stage, g.stages[static_cast<size_t>(n.stage)].name)
          : fmt::format("stage {}", n.stage);
  const std::string when =
      site.micro_batch >= 0
          ? fmt::format("{} step {}, micro-batch {} of replica {} (global micro-batch {})", site.run, site.step,
                        site.micro_batch, site.replica, site.global)
          : fmt::format("{} batch {}", site.run, site.step);
  const std::string message =
      fmt::format("`{}` (value %{}, {} pass of {}) produced {} in {}", ir::op_name(n.op), v,
                  n.phase == ir::Phase::Backward ? "backward" : "forward", stage, what_happened(c), when);
  const std::string key = flag_key(c);
  const std::string off = site.traps.set_all ? fmt::format("set `{}` and `ipu.floating_point_behaviour.set_all` to false", key)
                                             : fmt::format("set `{}` to false", key);
  throw Error(ErrorKind::Runtime, message, n.span,
              fmt::format("trapped by `{}`; {}, or {} to let the value through", key, advice(c), off));
}

}  // namespace iputrain::engine
