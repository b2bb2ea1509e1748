// The device loop must not allocate: every buffer is made once when the session is built.
// malloc is interposed (glibc's __libc_malloc does the work) and counted on the calling thread,
// which is the thread that runs the device loop.
#include <doctest/doctest.h>

#include <cstdlib>

#include "engine/optim/clipping.hpp"
#include "engine/optim/lr_schedule.hpp"
#include "engine/optim/optimizer.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t n, size_t size);
extern "C" void* __libc_realloc(void* p, size_t size);
extern "C" void* __libc_memalign(size_t align, size_t size);

namespace {
thread_local bool counting = false;
thread_local long allocations = 0;
}  // namespace

extern "C" void* malloc(size_t size) {
  if (counting) {
    ++allocations;
  }
  return __libc_malloc(size);
}
extern "C" void* calloc(size_t n, size_t size) {
  if (counting) {
    ++allocations;
  }
  return __libc_calloc(n, size);
}
extern "C" void* realloc(void* p, size_t size) {
  if (counting) {
    ++allocations;
  }
  return __libc_realloc(p, size);
}
extern "C" void* aligned_alloc(size_t align, size_t size) {
  if (counting) {
    ++allocations;
  }
  return __libc_memalign(align, size);
}
extern "C" int posix_memalign(void** out, size_t align, size_t size) {
  if (counting) {
    ++allocations;
  }
  *out = __libc_memalign(align, size);
  return *out != nullptr ? 0 : 12;
}

namespace {
long allocations_for(int steps) {
  using namespace iputrain;
  Config config = Config::parse(testing::synthetic_config(steps, 0.05, "steps_per_execution = 5\n"), "t.toml");
  Session session(Model::parse(testing::kMlp, "mlp.ipu"), config);
  allocations = 0;
  counting = true;
  session.train();
  counting = false;
  return allocations;
}
}  // namespace

TEST_CASE("train() allocates the same no matter how many steps it runs") {
  allocations_for(10);  // first use of the thread library, locale etc. allocates once per process
  const long few = allocations_for(10);
  const long many = allocations_for(400);
  MESSAGE("allocations in train(): " << few << " for 10 steps, " << many << " for 400 steps");
  CHECK(few == many);
  CHECK(few < 200);  // set-up only: infeed slots, outfeed records, the thread
}

TEST_CASE("optimizer updates, schedules and clipping allocate nothing") {
  using namespace iputrain;
  for (const char* type : {"sgd", "momentum", "adam", "adamw", "lamb", "rmsprop", "adagrad"}) {
    Config c;
    c.optimizer.type = type;
    c.optimizer.centered = true;
    c.optimizer.gradient_clip_norm = 1.0;
    c.optimizer.lr_schedule = "cosine";
    c.optimizer.decay_steps = 100;
    c.optimizer.warmup_steps = 10;
    auto opt = engine::make_optimizer(c);
    std::vector<float> w(1000, 0.5f), g(1000, 0.1f), state(2000, 0.0f);
    const std::vector<engine::ParamSlot> slots = {{w.data(), g.data(), state.data(), 1000}};
    opt->init_state(slots[0]);
    allocations = 0;
    counting = true;
    for (int64_t step = 1; step <= 50; ++step) {
      const float scale = engine::clip_scale(engine::sum_of_squares(slots), c.optimizer);
      opt->update(slots, step, engine::learning_rate_at(c.optimizer, step), scale);
    }
    counting = false;
    INFO(type);
    CHECK(allocations == 0);
  }
}
