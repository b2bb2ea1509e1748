// The counter-based RNG: known answers, determinism, independence of keys and streams, statistics.
#include <cmath>
#include <set>
#include <vector>

#include <doctest/doctest.h>

#include "core/rng.hpp"

namespace iputrain {

TEST_CASE("rng: Philox-4x32-10 known-answer vectors") {
  // The published Random123 test vectors (counter, key) -> output.
  using W = std::array<uint32_t, 4>;
  CHECK(philox4x32(0, W{0, 0, 0, 0}) == W{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32(0xffffffffffffffffULL, W{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}) ==
        W{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32(0x299f31d0a4093822ULL, W{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}) ==
        W{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("rng: FNV-1a") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("rng: the same seed and path and stream give the same numbers and any change gives others") {
  Rng a(7, "features/dense/kernel");
  Rng b(7, "features/dense/kernel");
  Rng other_seed(8, "features/dense/kernel");
  Rng other_path(7, "features/dense/bias");
  Rng other_stream(7, "features/dense/kernel", 1);
  int same_seed = 0;
  int same_path = 0;
  int same_stream = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.next_u64();
    CHECK(x == b.next_u64());
    same_seed += x == other_seed.next_u64();
    same_path += x == other_path.next_u64();
    same_stream += x == other_stream.next_u64();
  }
  CHECK(same_seed == 0);
  CHECK(same_path == 0);
  CHECK(same_stream == 0);
}

TEST_CASE("rng: seek gives random access into the stream") {
  Rng seq(3, "x");
  std::vector<uint32_t> words;
  for (int i = 0; i < 40; ++i) {
    words.push_back(seq.next_u32());
  }
  Rng jump(3, "x");
  jump.seek(5);  // block 5 = words 20..23
  for (int i = 20; i < 40; ++i) {
    CHECK(jump.next_u32() == words[static_cast<size_t>(i)]);
  }
}

TEST_CASE("rng: the sequential stream is the Philox block stream") {
  // Pinned outputs: a change here changes every initial weight and dropout mask of every model.
  Rng r(42, "features/dense/kernel");
  const uint64_t first = r.next_u64();
  Rng again(42, "features/dense/kernel");
  CHECK(again.next_u64() == first);
  const auto block = philox4x32(rng_key(42, "features/dense/kernel"), {0, 0, 0, 0});
  CHECK(first == (static_cast<uint64_t>(block[1]) << 32 | block[0]));
}

TEST_CASE("rng: uniform and normal statistics") {
  Rng r(1, "stats");
  const int n = 200000;
  double su = 0;
  double su2 = 0;
  float umin = 1;
  float umax = 0;
  for (int i = 0; i < n; ++i) {
    const float u = r.uniform();
    umin = std::min(umin, u);
    umax = std::max(umax, u);
    su += u;
    su2 += static_cast<double>(u) * u;
  }
  CHECK(umin >= 0.0f);
  CHECK(umax < 1.0f);
  CHECK(su / n == doctest::Approx(0.5).epsilon(0.01));
  CHECK(su2 / n - (su / n) * (su / n) == doctest::Approx(1.0 / 12).epsilon(0.02));
  double sn = 0;
  double sn2 = 0;
  int beyond2 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = r.normal();
    sn += z;
    sn2 += z * z;
    beyond2 += std::fabs(z) > 2.0;
  }
  CHECK(std::fabs(sn / n) < 0.01);
  CHECK(sn2 / n == doctest::Approx(1.0).epsilon(0.02));
  // P(|z| > 2) = 4.55% for a standard normal.
  CHECK(static_cast<double>(beyond2) / n == doctest::Approx(0.0455).epsilon(0.05));
}

TEST_CASE("rng: below is uniform") {
  Rng r(9, "shuffle");
  std::array<int, 7> counts{};
  for (int i = 0; i < 70000; ++i) {
    const uint64_t k = r.below(7);
    REQUIRE(k < 7);
    ++counts[k];
  }
  for (int c : counts) {
    CHECK(c == doctest::Approx(10000).epsilon(0.05));
  }
  CHECK(r.below(1) == 0);
}

}  // namespace iputrain
