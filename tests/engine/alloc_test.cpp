// The device loop must not allocate: every buffer is made once when the session is built.
// malloc is interposed (glibc's __libc_malloc does the work) and counted either on the calling
// thread, or on every thread but the calling one: the virtual IPUs' workers and the infeeds.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdlib>

#include "core/optim/clipping.hpp"
#include "core/optim/lr_schedule.hpp"
#include "core/optim/optimizer.hpp"
#include "core/optim_table.hpp"
#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t n, size_t size);
extern "C" void* __libc_realloc(void* p, size_t size);
extern "C" void* __libc_memalign(size_t align, size_t size);

namespace {
thread_local bool counting = false;
thread_local long allocations = 0;
// Allocations of the other threads (the host thread sets `host` to be left out).
std::atomic<bool> counting_others{false};
std::atomic<long> others{0};
thread_local bool host = false;

void count() {
  if (counting) {
    ++allocations;
  } else if (counting_others.load(std::memory_order_relaxed) && !host) {
    others.fetch_add(1, std::memory_order_relaxed);
  }
}
}  // namespace

extern "C" void* malloc(size_t size) {
  count();
  return __libc_malloc(size);
}
extern "C" void* calloc(size_t n, size_t size) {
  count();
  return __libc_calloc(n, size);
}
extern "C" void* realloc(void* p, size_t size) {
  count();
  return __libc_realloc(p, size);
}
extern "C" void* aligned_alloc(size_t align, size_t size) {
  count();
  return __libc_memalign(align, size);
}
extern "C" int posix_memalign(void** out, size_t align, size_t size) {
  count();
  *out = __libc_memalign(align, size);
  return *out != nullptr ? 0 : 12;
}

namespace {
// Allocations of the device threads during train(), for one IPU or a pipelined, replicated plan.
long allocations_for(int steps, const std::string& plan, const std::string& model = iputrain::testing::kMlp) {
  using namespace iputrain;
  Config config = config::parse(testing::synthetic_config(steps, 0.05, "steps_per_execution = 5\n") + plan, "t.toml");
  Session session(Model::parse(model, "mlp.ipu", config.model), config);
  host = true;
  others = 0;
  counting_others = true;
  session.train();
  counting_others = false;
  return others;
}
}  // namespace

TEST_CASE("the virtual IPUs and infeeds allocate the same no matter how many steps they run") {
  for (const std::string& plan :
       {std::string(), std::string("[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\n"
                                   "schedule = \"interleaved\"\ngradient_accumulation_count = 4\n")}) {
    allocations_for(10, plan);  // first use of the thread library, locale etc. allocates once per process
    const long few = allocations_for(10, plan);
    const long many = allocations_for(400, plan);
    MESSAGE("allocations on the device threads in train(): " << few << " for 10 steps, " << many << " for 400");
    CHECK(few == many);
    CHECK(few < 50);  // the infeed threads' start-up only
  }
}

TEST_CASE("kernels split on the shared TBB arena allocate nothing per step") {
  // Large enough that products, elementwise ops, reductions and the update run as parallel blocks.
  const std::string model = R"(import nn
model wide(batch: int = 64, hidden: int = 512) {
  input image: f32[batch, 16, 16]
  input label: i32[batch]
  stage features { h = nn.dense(flatten(image), hidden, activation = relu) }
  stage classifier {
    logits = nn.dense(nn.dense(h, hidden, activation = tanh), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";
  for (const std::string& plan : {std::string("[engine]\nthreads = 2\n"),
                                  std::string("[engine]\nthreads = 3\n[ipu]\nauto_select_ipus = 2\n[pipeline]\n"
                                              "device_mapping = [0, 1]\ngradient_accumulation_count = 4\n")}) {
    allocations_for(10, plan, model);
    const long few = allocations_for(10, plan, model);
    const long many = allocations_for(200, plan, model);
    MESSAGE("allocations on the device and arena threads in train(): " << few << " for 10 steps, " << many
                                                                        << " for 200");
    CHECK(few == many);
  }
}

TEST_CASE("moving statistics (batch norm) on replicated pipeline stages allocate nothing per step") {
  const std::string model = R"(import nn
model mlp_bn(batch: int = 16, hidden: int = 32) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage features { h = relu(nn.batch_norm(nn.dense(flatten(image), hidden))) }
  stage classifier {
    logits = nn.dense(nn.batch_norm(h), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";
  const std::string plan =
      "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"interleaved\"\n"
      "gradient_accumulation_count = 4\n";
  allocations_for(10, plan, model);
  const long few = allocations_for(10, plan, model);
  const long many = allocations_for(400, plan, model);
  MESSAGE("allocations on the device threads in train(): " << few << " for 10 steps, " << many << " for 400");
  CHECK(few == many);
}

TEST_CASE("optimizer updates, schedules and clipping allocate nothing") {
  using namespace iputrain;
  for (const auto* def : optimizer_table()) {
    Config c;
    c.plain.optimizer_type = std::string(def->name);
    c.optimizer.hyper["centered"] = 1;
    c.plain.optimizer_gradient_clip_norm = 1.0;
    c.plain.optimizer_lr_schedule = "cosine";
    c.plain.optimizer_decay_steps = 100;
    c.plain.optimizer_warmup_steps = 10;
    const Settings run = config::resolve(c);
    const OptimizerSettings& o = run.optimizer;
    auto opt = optim::make_optimizer(o);
    const Shape shape = {20, 50};
    std::vector<float> w(1000, 0.5f), g(1000, 0.1f);
    std::vector<float> state(static_cast<size_t>(optimizer_state_floats(o, shape)), 0.0f);
    const std::vector<optim::ParamSlot> slots = {{w.data(), g.data(), state.data(), 1000, 0, shape}};
    opt->init_state(slots[0]);
    opt->reserve(slots);  // as the worker does when it builds its slots (lamb's norm grains)
    // The schedule table is built on its first use, once per process (a loaded config's rules use it first).
    (void)optim::learning_rate_at(run, run.plain.optimizer_warmup_steps + 1);
    allocations = 0;
    counting = true;
    for (int64_t step = 1; step <= 50; ++step) {
      const float scale = optim::clip_scale(optim::sum_of_squares(slots), run);
      opt->update(slots, step, optim::learning_rate_at(run, step), scale);
    }
    counting = false;
    INFO(def->name);
    CHECK(allocations == 0);
  }
}
