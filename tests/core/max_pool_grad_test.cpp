// max_pool_grad (core/ops/max_pool_grad.cpp) against its definition (dx zeroed, then each dy added
// at its window's first maximum), bit for bit, with ties, nan, ±inf and -0 gradients (0 + -0 is
// +0), on 1 and 2 threads: the bits any rewrite of the kernel must keep (issue 35 tried a one-pass
// kernel for windows that tile the image; it measured slower and was left out).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/ir/graph.hpp"
#include "core/ops/op.hpp"
#include "core/parallel.hpp"

using namespace iputrain;
using namespace iputrain::ir;

TEST_CASE("max_pool_grad gives the bits of its definition on tiling windows") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    Shape x;
    int64_t kh, kw;
  };
  for (const Case& k : {Case{{3, 4, 6, 5}, 2, 2}, Case{{64, 28, 28, 16}, 2, 2}, Case{{2, 6, 6, 130}, 3, 2}}) {
    const int64_t n = k.x[0], h = k.x[1], w = k.x[2], c = k.x[3];
    const int64_t oh = h / k.kh, ow = w / k.kw;
    const TensorType tx{DType::F32, k.x};
    const TensorType ty{DType::F32, Shape{n, oh, ow, c}};
    std::vector<float> x(static_cast<size_t>(tx.numel())), dy(static_cast<size_t>(ty.numel()));
    uint32_t s = 5;
    const float specials[] = {nan, inf, -inf, -0.0f, 0.0f};
    for (size_t i = 0; i < x.size(); ++i) {
      s = s * 1664525u + 1013904223u;
      // Few distinct values make ties common; a few specials.
      x[i] = i % 53 == 0 ? specials[i % 5] : static_cast<float>((s >> 10) % 7);
    }
    for (size_t i = 0; i < dy.size(); ++i) {
      s = s * 1664525u + 1013904223u;
      dy[i] = i % 31 == 0 ? specials[i % 5] : static_cast<float>(static_cast<int32_t>(s >> 9) % 1000) / 7.0f;
    }
    // The definition.
    std::vector<float> expect(x.size(), 0.0f);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t i = 0; i < oh; ++i) {
        for (int64_t j = 0; j < ow; ++j) {
          for (int64_t ch = 0; ch < c; ++ch) {
            int64_t where = -1;
            float best = 0;
            for (int64_t u = 0; u < k.kh; ++u) {
              for (int64_t v = 0; v < k.kw; ++v) {
                const int64_t at = ((b * h + i * k.kh + u) * w + j * k.kw + v) * c + ch;
                if (where < 0 || x[static_cast<size_t>(at)] > best) {
                  best = x[static_cast<size_t>(at)];
                  where = at;
                }
              }
            }
            expect[static_cast<size_t>(where)] += dy[static_cast<size_t>(((b * oh + i) * ow + j) * c + ch)];
          }
        }
      }
    }
    Node node;
    node.op = OpKind::MaxPoolGrad;
    node.attrs.set("ksize", Shape{k.kh, k.kw});
    node.attrs.set("strides", Shape{k.kh, k.kw});
    for (int64_t threads : {1, 2}) {
      par::set_threads(threads);
      std::vector<float> got(x.size(), 123.0f);
      const Tensor in[] = {Tensor{&tx, x.data()}, Tensor{&ty, dy.data()}};
      op_def(OpKind::MaxPoolGrad).forward(KernelArgs{node, in, Tensor{&tx, got.data()}});
      CAPTURE(threads);
      CAPTURE(n);
      CHECK(std::memcmp(got.data(), expect.data(), got.size() * sizeof(float)) == 0);
    }
  }
  par::set_threads(0);
}
