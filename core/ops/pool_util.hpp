// Shared by max_pool, avg_pool and their gradients (NHWC): the window attributes (ksize required,
// strides defaulting to ksize, padding "valid" | "same" as in conv_util.hpp) and a walk over the
// valid input positions of each window.
#pragma once

#include "core/ops/conv_util.hpp"

namespace iputrain::ir {

//! The geometry of a pool over input shape `x` [N, H, W, C]; throws OpError on bad attributes.
ConvGeom pool_geom(const Shape& x, const Attrs& attrs);

//! Shape rule of max_pool / avg_pool: f32[N, H, W, C] -> f32[N, OH, OW, C].
TensorType infer_pool(const TensorType& x, const Attrs& attrs);

//! Calls f(out_offset, count) once per output position and, before it, visit(x_offset) for each
//! input position inside its window (offsets of C-long channel runs; padding is skipped), for
//! the images [n0, n1) (all of them by default).
template <typename Visit, typename Done>
void for_each_window(const ConvGeom& g, Visit visit, Done done, int64_t n0 = 0, int64_t n1 = -1) {
  if (n1 < 0) {
    n1 = g.n;
  }
  int64_t out = n0 * g.oh * g.ow * g.c;
  for (int64_t n = n0; n < n1; ++n) {
    for (int64_t oh = 0; oh < g.oh; ++oh) {
      const int64_t h0 = oh * g.sh - g.pt;
      for (int64_t ow = 0; ow < g.ow; ++ow, out += g.c) {
        const int64_t w0 = ow * g.sw - g.pl;
        int64_t count = 0;
        for (int64_t ih = std::max<int64_t>(h0, 0); ih < std::min(h0 + g.kh, g.h); ++ih) {
          for (int64_t iw = std::max<int64_t>(w0, 0); iw < std::min(w0 + g.kw, g.w); ++iw) {
            visit(out, ((n * g.h + ih) * g.w + iw) * g.c, count++);
          }
        }
        done(out, count);
      }
    }
  }
}

//! Pool cost: one operation per window element per output.
Cost pool_cost(const Graph& g, const Node& node);

}  // namespace iputrain::ir
