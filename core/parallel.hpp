// Intra-op parallelism: one oneTBB task arena shared by every virtual IPU of the process, so one
// IPU uses every core and many IPUs on few cores do not oversubscribe them (a thread that finds the
// arena full waits for a slot instead of adding a thread).
//
// Determinism: kernels split their work into blocks whose boundaries depend on the problem's
// shape and a fixed grain only, never on the thread count, and every block writes its own output
// elements (no block sums into another's). A block computes the same bits whichever thread runs
// it, so results are bitwise the same for any engine.threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace iputrain::par {

//! Sets the arena's concurrency: `threads` > 0 bounds it, 0 = every core of the machine. Called
//! when a cluster is built (never inside the device loop); creating an arena allocates once per
//! distinct count, switching back to a count used before does not.
void set_threads(int64_t threads);

//! The arena's concurrency now (>= 1).
int64_t threads();

//! The GEMM's grid keeps a product below 4x this many multiply-adds in one tile (core/ops/gemm.cpp).
//! The grid decides the order of sums, hence the bits: this constant is part of the results.
inline constexpr int64_t kSerialWork = 32 * 1024;

//! Work below this many multiply-adds (or element updates x cost) stays on the calling thread. On
//! the 2-core Xeon VM (issue 35) a relu over 100k-400k floats took as long on both cores as on one
//! (12.5 us against 13.3 at 102,400), and in LeNet's step the 100k-element kernels on both cores
//! took 52-66 us of wall time against 21-30 serial while the machine was loaded: a memory-bound
//! loop of this size gains less from a second core than entering the arena and the cross-core
//! traffic cost. Only where the blocks run changes, never the blocks: the bits stay the same.
inline constexpr int64_t kParallelWork = 256 * 1024;

//! The calling thread's kParallelWork: for_blocks keeps work below it on this thread. A virtual IPU's
//! thread sets it per execution (engine.spread_kernels, engine/cluster/spread_tuner.hpp); every
//! other thread keeps kParallelWork. Like the threshold, it moves blocks, never their bits. It is
//! never below kParallelWork (set_parallel_work raises a smaller value to it), so work below
//! kParallelWork stays on the calling thread under any limit (core/ops/bias_relu.cpp relies on it).
int64_t parallel_work();
void set_parallel_work(int64_t work);

namespace detail {
//! Runs body(block) for block in [0, blocks) on the shared arena.
void run_blocks(int64_t blocks, const std::function<void(int64_t)>& body);
}  // namespace detail

//! Calls f(begin, end) for the blocks [i * grain, min(n, (i + 1) * grain)) of [0, n), in parallel
//! when there is more than one block, the arena has more than one thread and `work` (an estimate
//! of the whole loop's cost in multiply-adds) is at least parallel_work(). The blocks are the same
//! whether they run in parallel or not. `f` must not allocate or throw.
template <typename F>
void for_blocks(int64_t n, int64_t grain, int64_t work, F&& f) {
  if (n <= 0) {
    return;
  }
  if (grain < 1) {
    grain = 1;
  }
  const int64_t blocks = (n + grain - 1) / grain;
  if (blocks == 1 || work < parallel_work() || threads() == 1) {
    for (int64_t b = 0; b < n; b += grain) {
      f(b, b + grain < n ? b + grain : n);
    }
    return;
  }
  // std::function over a reference wrapper: small enough for its inline buffer (no allocation).
  auto body = [&f, n, grain](int64_t i) {
    const int64_t b = i * grain;
    f(b, b + grain < n ? b + grain : n);
  };
  detail::run_blocks(blocks, std::cref(body));
}

//! A grain for an elementwise loop over n elements: at most 64 blocks of at least 16384 elements
//! (a function of n only, like every grain).
inline int64_t elementwise_grain(int64_t n) {
  const int64_t g = (n + 63) / 64;
  return g > 16384 ? g : 16384;
}

//! for_blocks over an elementwise loop of n elements costing about `per_element` each.
template <typename F>
void for_elements(int64_t n, int64_t per_element, F&& f) {
  for_blocks(n, elementwise_grain(n), n * per_element, static_cast<F&&>(f));
}

//! memcpy(dst, src, bytes) split over the arena in blocks of whole cache lines (a copy is the
//! same bytes however it is split).
void copy(void* dst, const void* src, size_t bytes);

}  // namespace iputrain::par
