// Emulated half precision: rounding f32 values to the values of f16 or bf16, kept in f32 storage.
//
// The engine computes in f32 and rounds every result to the compute type, so a tensor holds
// exactly the numbers a half-precision device would hold. Rounding is to nearest, ties to even, or
// stochastic (ipu.floating_point_behaviour.esr): up with probability equal to the distance from
// the lower neighbour in units of the gap, which makes the rounding unbiased in the mean. The
// random bits are a pure function of (seed, value, micro-batch, element), never of a thread or a
// device, so every plan rounds the same way.
//
// A finite result beyond the format's largest finite value overflows: it saturates to ±max (the
// IPU's behaviour with nanoo off) or becomes NaN (nanoo on). Either way it is counted, and so is
// any input that is already infinite or NaN, so that dynamic loss scaling sees every overflow.
#pragma once

#include <cstdint>

#include "core/types.hpp"

namespace iputrain {

//! How results are rounded to a half-precision compute type.
struct HalfRounding {
  DType type = DType::F16;       //!< F16 or BF16
  bool stochastic = false;       //!< esr: stochastic rounding instead of nearest-even
  bool nan_on_overflow = false;  //!< nanoo: overflow gives NaN instead of ±max
};

//! The largest finite value of `type` (F16: 65504, BF16: about 3.39e38).
float half_max(DType type);

//! `x` rounded to `type` to nearest, ties to even; overflow as `r` says (r.stochastic ignored).
//! Sets `*overflow` when x overflowed or was not finite.
float round_nearest(float x, const HalfRounding& r, bool* overflow);

//! `x` rounded down or up to a neighbouring value of `type`: up (away from zero) when
//! `random` / 2^32 is below the distance to the lower-magnitude neighbour over the gap.
float round_stochastic(float x, uint32_t random, const HalfRounding& r, bool* overflow);

//! The stochastic-rounding key of one value of one micro-batch: a pure function of its arguments.
uint64_t rounding_key(uint64_t seed, int64_t value, int64_t micro_batch);

//! Writes `src` rounded to nearest-even into `dst` (r.stochastic ignored); returns how many elements
//! overflowed or were not finite.
int64_t round_nearest_copy(const float* src, float* dst, int64_t n, const HalfRounding& r);

//! Rounds `n` floats in place; element i of a stochastic rounding uses the random bits of (key, i).
//! Returns how many elements overflowed or were not finite.
int64_t round_in_place(float* data, int64_t n, const HalfRounding& r, uint64_t key);
//! The same for elements first .. first + n - 1 of a longer array (a replica's block of a sharded
//! tensor): element i uses the random bits of (key, first + i), as rounding the whole array would.
int64_t round_in_place(float* data, int64_t n, const HalfRounding& r, uint64_t key, int64_t first);

}  // namespace iputrain
