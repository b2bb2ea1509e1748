#include "core/half_round.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "core/rng.hpp"

namespace iputrain {

namespace {

// A half format by its explicit mantissa bits and smallest normal exponent; both formats keep
// subnormals, whose spacing is that of the smallest binade.
struct Format {
  int mantissa_bits;
  int min_exponent;
  float max_finite;
};

Format format_of(DType type) {
  if (type == DType::BF16) {
    return {7, -126, std::bit_cast<float>(uint32_t{0x7F7F0000})};
  }
  return {10, -14, 65504.0f};
}

// f32 bits below the format's last mantissa bit where the format's spacing is the f32 spacing
// times 2^dropped: every bf16 value (its exponent range is f32's, subnormals included) and f16
// values from its smallest normal, 2^-14, up.
constexpr int kDroppedF16 = 13;
constexpr int kDroppedBF16 = 16;
constexpr float kF16MinNormal = 0x1p-14f;

float overflowed(float x, const Format& f, const HalfRounding& r, bool* overflow) {
  *overflow = true;
  return r.nan_on_overflow ? std::numeric_limits<float>::quiet_NaN() : std::copysign(f.max_finite, x);
}

// Keeps the bits of a rounded magnitude, or reports overflow when it went past the format's range.
float finish_bits(float x, uint32_t magnitude_bits, const Format& f, const HalfRounding& r, bool* overflow) {
  const float magnitude = std::bit_cast<float>(magnitude_bits);
  if (magnitude > f.max_finite) {
    return overflowed(x, f, r, overflow);
  }
  return std::copysign(magnitude, x);
}

// f16 subnormals are multiples of 2^-24 below 2^-14. Adding 0.5 (whose f32 spacing is 2^-24)
// rounds |x| to that grid, to nearest-even, in the FPU's default mode; subtracting it is exact.
float f16_subnormal_nearest(float x) {
  volatile float shifted = std::fabs(x) + 0.5f;  // volatile: the sum must be rounded, not folded away
  return std::copysign(shifted - 0.5f, x);
}

// Stochastic rounding on the f16 subnormal grid: |x| / 2^-24 is exact in f32 (a power-of-two
// scale of a value with 24 significant bits), so its fraction is too.
float f16_subnormal_stochastic(float x, uint32_t random) {
  const float q = std::fabs(x) * 0x1p24f;
  const float lower = std::floor(q);
  const bool up = static_cast<double>(random) * 0x1p-32 < static_cast<double>(q - lower);
  return std::copysign((lower + (up ? 1.0f : 0.0f)) * 0x1p-24f, x);
}

}  // namespace

float half_max(DType type) {
  return format_of(type).max_finite;
}

float round_nearest(float x, const HalfRounding& r, bool* overflow) {
  if (!std::isfinite(x)) {
    *overflow = true;
    return x;
  }
  const bool bf16 = r.type == DType::BF16;
  if (!bf16 && std::fabs(x) < kF16MinNormal) {
    return f16_subnormal_nearest(x);
  }
  // Add half a unit of the last kept bit, minus one unless that bit is odd, and cut: a carry out
  // of the mantissa moves to the next binade, as rounding must.
  const int dropped = bf16 ? kDroppedBF16 : kDroppedF16;
  const uint32_t bits = std::bit_cast<uint32_t>(std::fabs(x));
  const uint32_t odd = (bits >> dropped) & 1U;
  const uint32_t mask = (1U << dropped) - 1U;
  return finish_bits(x, (bits + (mask >> 1) + odd) & ~mask, format_of(r.type), r, overflow);
}

float round_stochastic(float x, uint32_t random, const HalfRounding& r, bool* overflow) {
  if (!std::isfinite(x)) {
    *overflow = true;
    return x;
  }
  const bool bf16 = r.type == DType::BF16;
  if (!bf16 && std::fabs(x) < kF16MinNormal) {
    return f16_subnormal_stochastic(x, random);
  }
  // Up with probability dropped / 2^k: `random` / 2^32 < dropped / 2^k compares the top k random
  // bits with the dropped bits.
  const int dropped = bf16 ? kDroppedBF16 : kDroppedF16;
  const uint32_t bits = std::bit_cast<uint32_t>(std::fabs(x));
  const uint32_t mask = (1U << dropped) - 1U;
  const uint32_t up = (random >> (32 - dropped)) < (bits & mask) ? 1U : 0U;
  return finish_bits(x, (bits & ~mask) + (up << dropped), format_of(r.type), r, overflow);
}

uint64_t rounding_key(uint64_t seed, int64_t value, int64_t micro_batch) {
  return mix64(mix64(rng_key(seed, "stochastic_rounding") ^ static_cast<uint64_t>(value)) ^
               mix64(static_cast<uint64_t>(micro_batch)));
}

namespace {

// One element of the fast nearest-even pass, written with masks instead of branches so that the
// loop around it vectorises. Returns the rounded bits, or `bits` unchanged when the result would
// not be finite in the format (overflow, inf, NaN), and sets `bad` to all ones in that case.
template <bool kF16>
inline uint32_t round_bits(uint32_t bits, uint32_t max_bits, uint32_t& bad) {
  constexpr int kDropped = kF16 ? kDroppedF16 : kDroppedBF16;
  constexpr uint32_t kMask = (1U << kDropped) - 1U;
  const uint32_t magnitude = bits & 0x7FFFFFFFU;
  const uint32_t rounded = (magnitude + (kMask >> 1) + ((magnitude >> kDropped) & 1U)) & ~kMask;
  uint32_t result = rounded;
  if constexpr (kF16) {
    // Below the f16 normals (zeros included, which are common) the grid is fixed: see
    // f16_subnormal_nearest. Without -ffast-math the sum and difference are rounded as written.
    const float tiny = (std::bit_cast<float>(magnitude) + 0.5f) - 0.5f;
    const uint32_t small = 0U - static_cast<uint32_t>(magnitude < std::bit_cast<uint32_t>(kF16MinNormal));
    result = (std::bit_cast<uint32_t>(tiny) & small) | (rounded & ~small);
  }
  const uint32_t ok = 0U - static_cast<uint32_t>(rounded <= max_bits);
  bad = ~ok;
  return ((result | (bits & 0x80000000U)) & ok) | (bits & ~ok);
}

// The nearest-even loop over a tensor, in chunks. The vectorised pass rounds every value that stays
// finite and copies the others unchanged, noting that it saw one; only such a chunk is walked
// again, and only those elements go through round_nearest. Rounding is idempotent, so the second
// walk tells the pass's results from the copies even when dst is src.
template <bool kF16>
int64_t round_nearest_loop(const float* src, float* dst, int64_t n, const HalfRounding& r) {
  const uint32_t max_bits = std::bit_cast<uint32_t>(format_of(r.type).max_finite);
  constexpr int64_t kChunk = 256;
  int64_t overflows = 0;
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t end = std::min(n, begin + kChunk);
    uint32_t any_bad = 0;
    for (int64_t i = begin; i < end; ++i) {
      uint32_t bad = 0;
      dst[i] = std::bit_cast<float>(round_bits<kF16>(std::bit_cast<uint32_t>(src[i]), max_bits, bad));
      any_bad |= bad;
    }
    if (any_bad == 0) {
      continue;
    }
    for (int64_t i = begin; i < end; ++i) {
      uint32_t bad = 0;
      round_bits<kF16>(std::bit_cast<uint32_t>(dst[i]), max_bits, bad);
      if (bad != 0) {
        bool over = false;
        dst[i] = round_nearest(dst[i], r, &over);
        overflows += over ? 1 : 0;
      }
    }
  }
  return overflows;
}

// The random word of element i of a stochastic rounding under `key`: each pair of consecutive
// elements takes the two halves of one splitmix64 word of (key, pair), a counter-based stream like
// Philox's but cheap enough to run on every result of every pass.
inline uint32_t rounding_word(uint64_t key, int64_t i) {
  const uint64_t word = mix64(key ^ (static_cast<uint64_t>(i >> 1) * 0xD1B54A32D192ED03ULL));
  return static_cast<uint32_t>((i & 1) != 0 ? word >> 32 : word);
}

// One element of the fast stochastic pass, branch-free like round_bits: up when the top bits of
// `random` fall below the dropped bits (probability dropped / gap).
template <bool kF16>
inline uint32_t round_bits_stochastic(uint32_t bits, uint32_t random, uint32_t max_bits, uint32_t& bad) {
  constexpr int kDropped = kF16 ? kDroppedF16 : kDroppedBF16;
  constexpr uint32_t kMask = (1U << kDropped) - 1U;
  const uint32_t magnitude = bits & 0x7FFFFFFFU;
  const uint32_t up = (random >> (32 - kDropped)) < (magnitude & kMask) ? 1U : 0U;
  const uint32_t rounded = (magnitude & ~kMask) + (up << kDropped);
  uint32_t result = rounded;
  if constexpr (kF16) {
    // The subnormal grid, as f16_subnormal_stochastic, every step exact: q = |x| / 2^-24 and its
    // fraction scaled by 2^32 are exact floats below 2^32 - 256, so `random / 2^32 < fraction`
    // is `random < ceil(fraction * 2^32)` in integers. The magnitude is clamped to the subnormal
    // range first, so that no lane converts an out-of-range float.
    const uint32_t min_normal = std::bit_cast<uint32_t>(kF16MinNormal);
    const uint32_t clamped = magnitude < min_normal ? magnitude : min_normal;  // not std::min: by value
    const float q = std::bit_cast<float>(clamped) * 0x1p24f;
    const float lower = std::floor(q);
    const auto threshold = static_cast<uint32_t>(std::ceil((q - lower) * 0x1p32f));
    const float tiny = (lower + static_cast<float>(random < threshold ? 1U : 0U)) * 0x1p-24f;
    const uint32_t small = 0U - static_cast<uint32_t>(magnitude < min_normal);
    result = (std::bit_cast<uint32_t>(tiny) & small) | (rounded & ~small);
  }
  const uint32_t ok = 0U - static_cast<uint32_t>(rounded <= max_bits);
  bad = ~ok;
  return ((result | (bits & 0x80000000U)) & ok) | (bits & ~ok);
}

// As round_nearest_loop, for stochastic rounding (the second walk redraws the same random words).
template <bool kF16>
int64_t round_stochastic_loop(float* data, int64_t n, const HalfRounding& r, uint64_t key, int64_t first) {
  const uint32_t max_bits = std::bit_cast<uint32_t>(format_of(r.type).max_finite);
  constexpr int64_t kChunk = 256;
  int64_t overflows = 0;
  for (int64_t begin = 0; begin < n; begin += kChunk) {
    const int64_t end = std::min(n, begin + kChunk);
    uint32_t any_bad = 0;
    for (int64_t i = begin; i < end; ++i) {
      uint32_t bad = 0;
      const uint32_t bits = std::bit_cast<uint32_t>(data[i]);
      data[i] = std::bit_cast<float>(round_bits_stochastic<kF16>(bits, rounding_word(key, first + i), max_bits, bad));
      any_bad |= bad;
    }
    if (any_bad == 0) {
      continue;
    }
    for (int64_t i = begin; i < end; ++i) {
      uint32_t bad = 0;
      round_bits_stochastic<kF16>(std::bit_cast<uint32_t>(data[i]), rounding_word(key, first + i), max_bits, bad);
      if (bad != 0) {
        bool over = false;
        data[i] = round_stochastic(data[i], rounding_word(key, first + i), r, &over);
        overflows += over ? 1 : 0;
      }
    }
  }
  return overflows;
}

int64_t round_nearest_any(const float* src, float* dst, int64_t n, const HalfRounding& r) {
  return r.type == DType::BF16 ? round_nearest_loop<false>(src, dst, n, r) : round_nearest_loop<true>(src, dst, n, r);
}

}  // namespace

int64_t round_nearest_copy(const float* src, float* dst, int64_t n, const HalfRounding& r) {
  return round_nearest_any(src, dst, n, r);
}

int64_t round_in_place(float* data, int64_t n, const HalfRounding& r, uint64_t key) {
  return round_in_place(data, n, r, key, 0);
}

int64_t round_in_place(float* data, int64_t n, const HalfRounding& r, uint64_t key, int64_t first) {
  if (!r.stochastic) {
    return round_nearest_any(data, data, n, r);
  }
  return r.type == DType::BF16 ? round_stochastic_loop<false>(data, n, r, key, first)
                               : round_stochastic_loop<true>(data, n, r, key, first);
}

}  // namespace iputrain
