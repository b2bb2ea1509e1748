// How long a cache line takes to go from one core to another and back, in nanoseconds: two
// threads pinned to the first two CPUs pass a counter back and forth (best of 5 rounds of 20,000
// trips). On a shared VM this moves as the hypervisor moves the virtual CPUs (the development
// machine reads ~55 ns when both sit on one core complex and ~330 ns when they do not), and every
// parallel kernel pays it, so bench/speed_suite.py prints it beside its figures.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

namespace {

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

double round_trip_ns(int trips) {
  alignas(64) std::atomic<int> turn{0};
  std::thread other([&] {
    pin(1);
    for (int i = 0; i < trips; ++i) {
      while (turn.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      turn.store(2 * i + 2, std::memory_order_release);
    }
  });
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < trips; ++i) {
    turn.store(2 * i + 1, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != 2 * i + 2) {
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  other.join();
  return seconds / trips * 1e9;
}

}  // namespace

int main() {
  if (std::thread::hardware_concurrency() < 2 || !pin(0)) {
    std::printf("{\"round_trip_ns\": null}\n");
    return 0;
  }
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    best = std::min(best, round_trip_ns(20000));
  }
  std::printf("{\"round_trip_ns\": %.0f}\n", best);
  return 0;
}
