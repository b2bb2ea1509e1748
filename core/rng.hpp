// Counter-based random numbers: Philox-4x32-10 keyed by (seed, path, stream).
//
// Every random tensor in iputrain (initial weights, dropout masks, shuffles) is a pure function of
// the config seed, a string naming what it is for (a parameter path such as
// "features/dense/kernel", "shuffle", a dropout node's path) and a stream number (step, epoch,
// replica…). No state is shared between users, so the values do not depend on evaluation order,
// threading or how the model is split across devices. Only integer arithmetic produces the raw
// bits, so they are identical on every platform; no std:: distributions are used.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace iputrain {

//! 64-bit FNV-1a hash of `s`.
uint64_t fnv1a64(std::string_view s);

//! splitmix64's finaliser: a bijective mix of 64 bits (inline: stochastic rounding calls it per
//! pair of elements).
inline uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

//! The Philox key for (seed, path).
uint64_t rng_key(uint64_t seed, std::string_view path);

//! One Philox-4x32-10 block: 128 random bits for `counter` under `key`.
std::array<uint32_t, 4> philox4x32(uint64_t key, std::array<uint32_t, 4> counter);

//! A sequential view of the Philox stream for (seed, path, stream): block b of the stream is
//! philox4x32(rng_key(seed, path), {b_lo, b_hi, stream_lo, stream_hi}).
class Rng {
 public:
  Rng(uint64_t seed, std::string_view path, uint64_t stream = 0);

  //! Continues from block `block` (each block is four 32-bit words): random access, so parallel
  //! workers can fill disjoint ranges of one tensor with the values a single worker would produce.
  void seek(uint64_t block);

  uint32_t next_u32();
  uint64_t next_u64();
  //! Uniform in [0, 1) with 24 random bits (every value is an exact float).
  float uniform();
  //! Standard normal (Box-Muller, computed in double). Uses two 32-bit words per pair of values.
  //! The transcendental functions come from the C library; the result is rounded to float, so
  //! platforms agree except in vanishingly rare rounding ties.
  float normal();
  //! Uniform integer in [0, n) without modulo bias (n > 0); for shuffling.
  uint64_t below(uint64_t n);

 private:
  void refill();

  uint64_t key_;
  uint64_t stream_;
  uint64_t block_ = 0;
  std::array<uint32_t, 4> buf_{};
  int pos_ = 4;  // next word of buf_; 4 = empty
  float spare_normal_ = 0.0f;
  bool has_spare_ = false;
};

}  // namespace iputrain
