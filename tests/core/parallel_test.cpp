// The shared arena's loops (core/parallel.hpp): every block runs once whatever the thread count,
// and a parallel copy writes exactly the bytes memcpy would.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/parallel.hpp"

using namespace iputrain;

TEST_CASE("for_blocks runs every block exactly once, for 1, 2, 3 and 8 threads") {
  for (int64_t threads : {1, 2, 3, 8}) {
    par::set_threads(threads);
    for (int64_t n : {1, 7, 64, 1000, 100003}) {
      CAPTURE(threads);
      CAPTURE(n);
      std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
      par::for_blocks(n, 13, int64_t{1} << 30, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          seen[static_cast<size_t>(i)].fetch_add(1);
        }
      });
      int64_t wrong = 0;
      for (const auto& s : seen) {
        wrong += s.load() == 1 ? 0 : 1;
      }
      CHECK(wrong == 0);
    }
  }
  par::set_threads(0);
}

TEST_CASE("copy writes the bytes memcpy writes, at any size and offset") {
  for (int64_t threads : {1, 2, 3}) {
    par::set_threads(threads);
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{65537}, size_t{1} << 20, (size_t{3} << 20) + 5}) {
      CAPTURE(threads);
      CAPTURE(bytes);
      std::vector<unsigned char> src(bytes + 3);
      for (size_t i = 0; i < src.size(); ++i) {
        src[i] = static_cast<unsigned char>(i * 131 + 7);
      }
      std::vector<unsigned char> dst(bytes + 8, 0xAB);
      std::vector<unsigned char> expect = dst;
      if (bytes > 0) {
        std::memcpy(expect.data() + 1, src.data() + 3, bytes);
      }
      par::copy(dst.data() + 1, src.data() + 3, bytes);
      CHECK(dst == expect);
    }
  }
  par::set_threads(0);
}
