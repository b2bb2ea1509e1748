// The C++ side of the sgemm roofline of bench/speed_suite.py: C = A @ B at 2048^3 through the
// engine's GEMM (core/ops/gemm.hpp) on the shared arena at every core and on one thread, and plain
// Eigen on one thread. Prints one JSON line of GFLOP/s (best of 5).
#include <fmt/format.h>

#include <Eigen/Core>
#include <chrono>
#include <cstdlib>
#include <vector>

#include "core/ops/gemm.hpp"
#include "core/parallel.hpp"

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 2048;
  const int64_t threads = argc > 2 ? std::atoll(argv[2]) : 0;
  iputrain::par::set_threads(threads);
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n);
  for (int64_t i = 0; i < n * n; ++i) {
    a[i] = static_cast<float>((i * 7) % 13) / 13.0f;
    b[i] = static_cast<float>((i * 5) % 11) / 11.0f;
  }
  const double flops = 2.0 * n * n * n;
  auto best_of = [&](auto&& f) {
    double best = 0;
    for (int r = 0; r < 5; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      f();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, flops / s / 1e9);
    }
    return best;
  };
  auto engine_gemm = [&] { iputrain::ir::gemm(a.data(), false, b.data(), false, c.data(), n, n, n); };
  const double tiled = best_of(engine_gemm);
  iputrain::par::set_threads(1);
  const double tiled_1thread = best_of(engine_gemm);
  iputrain::par::set_threads(threads);
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<const M> ma(a.data(), n, n), mb(b.data(), n, n);
  Eigen::Map<M> mc(c.data(), n, n);
  const double plain = best_of([&] { mc.noalias() = ma * mb; });
  fmt::print(
      "{{\"n\": {}, \"threads\": {}, \"iputrain_gemm_gflops\": {:.1f}, \"iputrain_gemm_1thread_gflops\": {:.1f}, "
      "\"eigen_1thread_gflops\": {:.1f}}}\n",
      n, iputrain::par::threads(), tiled, tiled_1thread, plain);
  return 0;
}
