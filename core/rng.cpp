#include "core/rng.hpp"

#include <cmath>

namespace iputrain {

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t rng_key(uint64_t seed, std::string_view path) {
  // Mixing the seed first keeps seeds 0, 1, 2… from giving related keys for one path.
  return mix64(mix64(seed) ^ fnv1a64(path));
}

std::array<uint32_t, 4> philox4x32(uint64_t key, std::array<uint32_t, 4> ctr) {
  constexpr uint32_t kM0 = 0xD2511F53u;
  constexpr uint32_t kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u;
  constexpr uint32_t kW1 = 0xBB67AE85u;
  uint32_t k0 = static_cast<uint32_t>(key);
  uint32_t k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    const auto hi0 = static_cast<uint32_t>(p0 >> 32);
    const auto lo0 = static_cast<uint32_t>(p0);
    const auto hi1 = static_cast<uint32_t>(p1 >> 32);
    const auto lo1 = static_cast<uint32_t>(p1);
    ctr = {hi1 ^ ctr[1] ^ k0, lo1, hi0 ^ ctr[3] ^ k1, lo0};
    k0 += kW0;
    k1 += kW1;
  }
  return ctr;
}

Rng::Rng(uint64_t seed, std::string_view path, uint64_t stream)
    : key_(rng_key(seed, path)), stream_(stream) {}

void Rng::seek(uint64_t block) {
  block_ = block;
  pos_ = 4;
  has_spare_ = false;
}

void Rng::refill() {
  buf_ = philox4x32(key_, {static_cast<uint32_t>(block_), static_cast<uint32_t>(block_ >> 32),
                           static_cast<uint32_t>(stream_), static_cast<uint32_t>(stream_ >> 32)});
  ++block_;
  pos_ = 0;
}

uint32_t Rng::next_u32() {
  if (pos_ >= 4) {
    refill();
  }
  return buf_[static_cast<size_t>(pos_++)];
}

uint64_t Rng::next_u64() {
  const uint64_t lo = next_u32();
  const uint64_t hi = next_u32();
  return lo | (hi << 32);
}

float Rng::uniform() {
  return static_cast<float>(next_u32() >> 8) * 0x1p-24f;
}

float Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  // u1 in (0, 1] so the log is finite; u2 in [0, 1).
  const double u1 = static_cast<double>((next_u32() >> 8) + 1) * 0x1p-24;
  const double u2 = static_cast<double>(next_u32() >> 8) * 0x1p-24;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 6.283185307179586476925 * u2;
  spare_normal_ = static_cast<float>(r * std::sin(theta));
  has_spare_ = true;
  return static_cast<float>(r * std::cos(theta));
}

uint64_t Rng::below(uint64_t n) {
  // Reject the lowest (2^64 mod n) values so every residue is equally likely.
  const uint64_t threshold = (0 - n) % n;
  for (;;) {
    const uint64_t r = next_u64();
    if (r >= threshold) {
      return r % n;
    }
  }
}

}  // namespace iputrain
