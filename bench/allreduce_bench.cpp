// The cross-instance all-reduce on its own, under `mpirun -n P allreduce_bench`: one replica per
// instance, one gradient bucket of n floats, reduced as the cluster does it (reduce-scatter of the
// partial sums by canonical blocks, iputrain's own additions, all-gather of the roots). Prints,
// per bucket size, the time per reduction and the bandwidth achieved: the bucket's bytes over the
// time (algorithm bandwidth) and the bytes each instance sent and received over it (bus bandwidth).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "engine/cluster/grad_tree.hpp"
#include "engine/cluster/instance_reduce.hpp"
#include "iputrain/instances.hpp"

using namespace iputrain;
using namespace iputrain::engine;

int main() {
  const Instances in = join_instances();
  if (in.count < 2) {
    fmt::print(stderr, "run it under mpirun with two or more instances: mpirun -n 2 {}\n", "allreduce_bench");
    return 2;
  }
  const auto link = make_instance_link(1);
  const int32_t R = in.count;
  if (in.index == 0) {
    fmt::print("all-reduce across {} instances (one replica each), f32 gradients\n", R);
    fmt::print("{:>12}  {:>10}  {:>14}  {:>14}\n", "bucket", "ms/reduce", "algorithm GB/s", "bus GB/s");
  }
  for (int64_t bytes = 4 << 10; bytes <= (int64_t{64} << 20); bytes *= 4) {
    const int64_t n = bytes / 4;
    std::vector<std::vector<float>> storage(static_cast<size_t>(R), std::vector<float>(static_cast<size_t>(n)));
    std::vector<std::unique_ptr<GradTree>> trees;
    std::vector<GradTree*> list;
    std::vector<float> grad(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      grad[static_cast<size_t>(i)] = 1e-3f * static_cast<float>((i * 7 + in.index) % 101);
    }
    for (int32_t r = 0; r < R; ++r) {
      trees.push_back(std::make_unique<GradTree>(DType::F32, n, std::vector<void*>{storage[static_cast<size_t>(r)].data()}));
      list.push_back(trees.back().get());
    }
    const ReduceParts parts{{&list, n}};
    const InstanceSpan span{*link, in.index, 1, R};
    ReduceScratch scratch(R);
    const int reps = static_cast<int>(std::clamp<int64_t>((int64_t{256} << 20) / bytes, 3, 200));
    double best = 1e30;
    for (int rep = 0; rep < reps; ++rep) {
      trees[static_cast<size_t>(in.index)]->clear();
      trees[static_cast<size_t>(in.index)]->push(in.index, grad.data());
      const auto t0 = std::chrono::steady_clock::now();
      send_stacks(span, 0, parts);
      reduce_slice(list, span.begin(n, in.index), span.begin(n, in.index + 1), scratch);
      share_roots(span, 0, parts);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    // Each instance sends (R - 1) / R of the bucket twice (partial sums, then roots).
    const double bus = 2.0 * static_cast<double>(bytes) * (R - 1) / R;
    if (in.index == 0) {
      fmt::print("{:>9} KiB  {:>10.3f}  {:>14.2f}  {:>14.2f}\n", bytes >> 10, best * 1e3, bytes / best * 1e-9,
                 bus / best * 1e-9);
    }
  }
  leave_instances();
  return 0;
}
