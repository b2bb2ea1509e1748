#include "core/parallel.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

namespace iputrain::par {

namespace {

// One arena per concurrency ever asked for, never destroyed: a device thread of another session
// may still be inside the previous one when a new cluster changes the count.
constexpr int64_t kMaxThreads = 256;
std::mutex arenas_mutex;
std::array<std::unique_ptr<oneapi::tbb::task_arena>, kMaxThreads + 1> arenas;
std::atomic<oneapi::tbb::task_arena*> current{nullptr};
std::atomic<int64_t> current_threads{1};
// TBB caps its workers at the machine's concurrency - 1; an explicit engine.threads above the core
// count raises the cap (it is what the user asked for), never lowers it.
std::unique_ptr<oneapi::tbb::global_control> worker_cap;
int64_t worker_cap_value = 0;

int64_t all_cores() { return std::max<int64_t>(1, oneapi::tbb::info::default_concurrency()); }

}  // namespace

void set_threads(int64_t threads) {
  const int64_t n = std::clamp<int64_t>(threads > 0 ? threads : all_cores(), 1, kMaxThreads);
  std::lock_guard lock(arenas_mutex);
  auto& arena = arenas[static_cast<size_t>(n)];
  if (n > all_cores() && n > worker_cap_value) {
    worker_cap = std::make_unique<oneapi::tbb::global_control>(
        oneapi::tbb::global_control::max_allowed_parallelism, static_cast<size_t>(n));
    worker_cap_value = n;
  }
  if (!arena) {
    // One slot is reserved for the device threads that enter it; the others go to TBB's workers.
    arena = std::make_unique<oneapi::tbb::task_arena>(static_cast<int>(n), 1);
    arena->initialize();
  }
  current.store(arena.get(), std::memory_order_release);
  current_threads.store(n, std::memory_order_release);
}

int64_t threads() {
  if (current.load(std::memory_order_acquire) == nullptr) {
    set_threads(0);
  }
  return current_threads.load(std::memory_order_acquire);
}

namespace {
thread_local int64_t parallel_work_here = kParallelWork;
}  // namespace

int64_t parallel_work() { return parallel_work_here; }

void set_parallel_work(int64_t work) { parallel_work_here = std::max(work, kParallelWork); }

namespace detail {

void run_blocks(int64_t blocks, const std::function<void(int64_t)>& body) {
  oneapi::tbb::task_arena* arena = current.load(std::memory_order_acquire);
  const int64_t p = std::min<int64_t>(blocks, current_threads.load(std::memory_order_acquire));
  // Chunk c holds the blocks [c * blocks / p, (c + 1) * blocks / p), claimed block by block; chunk c
  // is first offered to the arena's thread c, so the same thread handles the same part of a
  // tensor from kernel to kernel (a thread whose chunk is done helps with the others). One cache
  // line per chunk's counter: threads claiming from their own chunks do not share a line.
  struct alignas(64) Next {
    std::atomic<int64_t> block;
  };
  std::array<Next, kMaxThreads> next;
  for (int64_t c = 0; c < p; ++c) {
    next[static_cast<size_t>(c)].block.store(c * blocks / p, std::memory_order_relaxed);
  }
  arena->execute([&] {
    oneapi::tbb::parallel_for(
        oneapi::tbb::blocked_range<int64_t>(0, p, 1),
        [&](const oneapi::tbb::blocked_range<int64_t>& r) {
          const int slot = oneapi::tbb::this_task_arena::current_thread_index();
          const int64_t first = slot >= 0 && slot < p ? slot : r.begin();
          for (int64_t i = 0; i < p; ++i) {
            const int64_t c = (first + i) % p;
            const int64_t end = (c + 1) * blocks / p;
            std::atomic<int64_t>& claim = next[static_cast<size_t>(c)].block;
            for (int64_t b = claim.fetch_add(1, std::memory_order_relaxed); b < end;
                 b = claim.fetch_add(1, std::memory_order_relaxed)) {
              body(b);
            }
          }
        },
        oneapi::tbb::simple_partitioner());
  });
}

}  // namespace detail

void copy(void* dst, const void* src, size_t bytes) {
  constexpr int64_t kGrain = 64 * 1024;  // bytes per block: a multiple of the cache line
  auto* d = static_cast<std::byte*>(dst);
  const auto* s = static_cast<const std::byte*>(src);
  const auto n = static_cast<int64_t>(bytes);
  for_blocks(n, std::max<int64_t>(kGrain, (n / 8 + 63) / 64 * 64), n / 8,
             [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, static_cast<size_t>(e - b)); });
}

}  // namespace iputrain::par
