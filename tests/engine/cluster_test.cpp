// The threaded cluster: its links (bounded, matched by id, abortable), meeting points, the
// canonical gradient tree, the outfeed queue's shapes, the memory account against the planner,
// and a 16-IPU run.
#include <doctest/doctest.h>

#include <Eigen/Core>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "core/data/dataset.hpp"
#include "engine/cluster/cluster.hpp"
#include "engine/cluster/device_memory.hpp"
#include "engine/cluster/grad_tree.hpp"
#include "engine/cluster/host_outfeed.hpp"
#include "engine/cluster/mailbox.hpp"
#include "engine/cluster/rendezvous.hpp"
#include "frontend/model_access.hpp"
#include "iputrain/iputrain.hpp"
#include "planner/buffer_assignment.hpp"
#include "planner/plan.hpp"
#include "test_models.hpp"
#include "tests/planner/plan_from_config.hpp"

using namespace iputrain;
using namespace iputrain::engine;

TEST_CASE("a mailbox holds at most its capacity and hands out messages by id") {
  Mailbox box(2, 8);
  constexpr int kMessages = 200;
  std::thread sender([&] {
    for (int64_t i = 0; i < kMessages; ++i) {
      Mailbox::Slot& s = box.begin_send();
      std::memcpy(s.data, &i, sizeof(i));
      box.end_send(s, i, static_cast<double>(i));
    }
  });
  // Receive in pairs, the second of each pair first: the mailbox must match by tag.
  for (int64_t i = 0; i < kMessages; i += 2) {
    for (int64_t tag : {i + 1, i}) {
      Mailbox::Slot& s = box.begin_recv(tag);
      int64_t got = -1;
      std::memcpy(&got, s.data, sizeof(got));
      CHECK(got == tag);
      CHECK(s.sim_sent == static_cast<double>(tag));
      box.end_recv(s, 0);
    }
  }
  sender.join();
  CHECK(box.peak_in_flight() <= 2);
  CHECK(box.peak_in_flight() >= 1);
}

TEST_CASE("abort wakes a receiver waiting for a message that never comes") {
  Mailbox box(1, 4);
  std::atomic<bool> aborted{false};
  std::thread receiver([&] {
    try {
      box.begin_recv(7);
    } catch (const Aborted&) {
      aborted = true;
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  box.abort();
  receiver.join();
  CHECK(aborted);
  CHECK_THROWS_AS(box.begin_send(), Aborted);  // and every later wait fails at once
  box.reset();
  Mailbox::Slot& s = box.begin_send();
  box.end_send(s, 1, 0);
  CHECK(&box.begin_recv(1) == &s);
}

TEST_CASE("a rendezvous returns every participant's value in order and the latest clock") {
  constexpr int kParties = 4;
  Rendezvous meet(kParties);
  std::vector<std::vector<double>> seen(kParties);
  std::vector<double> latest(kParties);
  std::vector<std::thread> threads;
  for (int who = 0; who < kParties; ++who) {
    threads.emplace_back([&, who] {
      for (int round = 0; round < 50; ++round) {
        const auto met = meet.arrive(who, who * 10.0 + round, 100.0 * who + round);
        for (int k = 0; k < kParties; ++k) {
          seen[static_cast<size_t>(who)].push_back(met.values[k]);
        }
        latest[static_cast<size_t>(who)] = met.latest_sim;
      }
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  for (int who = 0; who < kParties; ++who) {
    const auto& s = seen[static_cast<size_t>(who)];
    REQUIRE(s.size() == 50 * kParties);
    CHECK(s[49 * kParties + 2] == 2 * 10.0 + 49);
    CHECK(latest[static_cast<size_t>(who)] == 300.0 + 49);
  }
}

namespace {

// The contract's tree, written as its definition: split at the largest power of two below n.
float tree_sum(const std::vector<float>& leaves, size_t first, size_t n) {
  if (n == 1) {
    return leaves[first];
  }
  size_t left = 1;
  while (left * 2 < n) {
    left *= 2;
  }
  return tree_sum(leaves, first, left) + tree_sum(leaves, first + left, n - left);
}

// R replicas each push A leaves (element i of leaf g = values[g * size + i]); returns the root.
std::vector<float> accumulate(const std::vector<float>& values, int64_t size, int32_t replicas, int64_t a, DType dtype,
                              GradientAccumulationOrder order = GradientAccumulationOrder::Canonical) {
  std::vector<std::vector<std::vector<std::byte>>> memory(static_cast<size_t>(replicas));
  std::vector<std::unique_ptr<GradTree>> trees;
  int32_t depth = 1;  // the sequential order's one running sum
  for (int32_t r = 0; r < replicas && order == GradientAccumulationOrder::Canonical; ++r) {
    depth = std::max(depth, planner::tree_stack_depth(r * a, a));
  }
  for (int32_t r = 0; r < replicas; ++r) {
    std::vector<void*> slots;
    for (int32_t d = 0; d < depth; ++d) {
      slots.push_back(memory[static_cast<size_t>(r)].emplace_back(static_cast<size_t>(size) * 4).data());
    }
    trees.push_back(std::make_unique<GradTree>(dtype, size, slots, order));
    for (int64_t m = 0; m < a; ++m) {
      const int64_t leaf = r * a + m;
      trees.back()->push(leaf, values.data() + leaf * size);
    }
  }
  std::vector<GradTree*> all;
  for (auto& t : trees) {
    all.push_back(t.get());
  }
  if (replicas == 1) {
    trees[0]->fold();
  } else {
    ReduceScratch scratch(replicas * depth);
    // Each replica reduces its own share, as the workers do.
    for (int32_t r = 0; r < replicas; ++r) {
      reduce_slice(all, size * r / replicas, size * (r + 1) / replicas, scratch);
    }
  }
  std::vector<float> root(static_cast<size_t>(size));
  trees[static_cast<size_t>(replicas - 1)]->root_f32(root.data());
  return root;
}

}  // namespace

TEST_CASE("the gradient tree gives the same bits for every split of the leaves") {
  std::mt19937 gen(3);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  constexpr int64_t kSize = 700;  // more than one reduction chunk, not a multiple of it
  for (int64_t n : {1, 2, 3, 6, 7, 12, 16, 24}) {
    std::vector<float> values(static_cast<size_t>(n * kSize));
    for (float& v : values) {
      v = dist(gen) * 1000.0f;  // large spread: a different summation order would show
    }
    std::vector<float> expected(kSize);
    for (int64_t i = 0; i < kSize; ++i) {
      std::vector<float> leaves;
      for (int64_t g = 0; g < n; ++g) {
        leaves.push_back(values[static_cast<size_t>(g * kSize + i)]);
      }
      expected[static_cast<size_t>(i)] = tree_sum(leaves, 0, leaves.size());
    }
    const std::vector<float> f16_one = accumulate(values, kSize, 1, n, DType::F16);
    for (int32_t r = 1; r <= n; ++r) {
      if (n % r != 0) {
        continue;
      }
      CAPTURE(n);
      CAPTURE(r);
      const auto got = accumulate(values, kSize, r, n / r, DType::F32);
      CHECK(std::memcmp(got.data(), expected.data(), expected.size() * 4) == 0);
      const auto f16 = accumulate(values, kSize, r, n / r, DType::F16);
      CHECK(std::memcmp(f16.data(), f16_one.data(), f16_one.size() * 4) == 0);
    }
  }
}

TEST_CASE("the sequential order: one buffer, micro-batches in order, then replicas left to right") {
  std::mt19937 gen(5);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  constexpr int64_t kSize = 700;
  constexpr int64_t kLeaves = 12;
  std::vector<float> values(static_cast<size_t>(kLeaves * kSize));
  for (float& v : values) {
    v = dist(gen) * 1000.0f;
  }
  for (int32_t r : {1, 2, 3, 4, 6}) {
    CAPTURE(r);
    const int64_t a = kLeaves / r;
    std::vector<float> expected(kSize);
    for (int64_t i = 0; i < kSize; ++i) {
      float total = 0;
      for (int32_t k = 0; k < r; ++k) {
        float sum = values[static_cast<size_t>(k * a * kSize + i)];
        for (int64_t m = 1; m < a; ++m) {
          sum += values[static_cast<size_t>((k * a + m) * kSize + i)];
        }
        total = k == 0 ? sum : total + sum;
      }
      expected[static_cast<size_t>(i)] = total;
    }
    const auto got = accumulate(values, kSize, r, a, DType::F32, GradientAccumulationOrder::Sequential);
    CHECK(std::memcmp(got.data(), expected.data(), expected.size() * 4) == 0);
  }
  // A leaf out of order would need a second buffer: refused instead of summed in another order.
  std::vector<float> buffer(3);
  std::vector<float> grad(3, 1.0f);
  GradTree tree(DType::F32, 3, {buffer.data()}, GradientAccumulationOrder::Sequential);
  tree.push(0, grad.data());
  CHECK_THROWS_AS(tree.push(2, grad.data()), Error);
}

TEST_CASE("the accumulators a replica needs are the planner's tree_stack_depth") {
  for (int64_t a : {1, 2, 3, 5, 8, 13}) {
    for (int64_t r = 0; r < 4; ++r) {
      std::vector<float> grad(3, 1.0f);
      std::vector<std::vector<float>> buffers(static_cast<size_t>(planner::tree_stack_depth(r * a, a)),
                                              std::vector<float>(3));
      std::vector<void*> slots;
      for (auto& b : buffers) {
        slots.push_back(b.data());
      }
      GradTree tree(DType::F32, 3, slots);
      for (int64_t m = 0; m < a; ++m) {
        tree.push(r * a + m, grad.data());  // throws if it needs more buffers
      }
      if (r == 0) {
        tree.fold();
        std::vector<float> root(3);
        tree.root_f32(root.data());
        CHECK(root[0] == static_cast<float>(a));
      }
    }
  }
}

TEST_CASE("outfeed shapes follow the seed: ALL [n, (replicas,) ...], LAST [(replicas,) ...]") {
  ir::Graph g;
  const ir::ValueId x = g.add_input("x", TensorType{DType::F32, {4, 4}});
  const ir::ValueId s = g.add_input("s", TensorType{DType::F32, {1}});
  std::vector<float> ones(16, 1.0f);
  const ir::Tensor tx{&g.type(x), ones.data()};
  const ir::Tensor ts{&g.type(s), ones.data()};
  auto run = [&](int32_t replicas, bool last, bool accumulate, int64_t updates) {
    OutfeedSpec spec{{x, s}, {"out", "sum"}, last, accumulate, false};
    HostOutfeed feed(g, spec, replicas, /*micro_batches=*/2, /*max updates=*/updates);
    for (int32_t r = 0; r < replicas; ++r) {
      for (int64_t u = 0; u < updates; ++u) {
        for (int64_t m = 0; m < 2; ++m) {
          feed.enqueue(0, r, u, m, tx);
          feed.enqueue(1, r, u, m, ts);
        }
      }
    }
    feed.commit(updates);
    return feed.dequeue();
  };
  // The doc's examples: 20 enqueues of [4, 4] with 2 replicas; a tuple with one replica.
  auto all = run(2, false, false, 10);
  REQUIRE(all.size() == 2);
  CHECK(all[0].shape == std::vector<int64_t>{20, 2, 4, 4});
  CHECK(all[1].shape == std::vector<int64_t>{20, 2, 1});
  CHECK(all[0].values.size() == 20 * 2 * 16);
  auto last = run(2, true, false, 10);
  CHECK(last[0].shape == std::vector<int64_t>{2, 4, 4});
  auto single = run(1, false, false, 10);
  CHECK(single[0].shape == std::vector<int64_t>{20, 4, 4});
  CHECK(single[1].shape == std::vector<int64_t>{20, 1});
  CHECK(run(1, true, false, 10)[1].shape == std::vector<int64_t>{1});
  // accumulate_outfeed: one element per update, the plain sum of its micro-batches.
  auto acc = run(8, false, true, 5);
  CHECK(acc[0].shape == std::vector<int64_t>{5, 8, 4, 4});
  CHECK(acc[0].values[0] == 2.0f);
}

namespace {

// A one-stage model whose output copies its input, so outfeed values can be traced to samples.
const std::string kEcho = R"(import nn

model echo(batch: int = 4) {
  input x: f32[batch, 4]
  input label: i32[batch]
  logits = nn.dense(x, 3)
  loss = mean(softmax_cross_entropy(logits, label))
  minimize loss
  output loss
  output first = x * 1.0
}
)";

std::string echo_config(const std::string& extra_pipeline, const std::string& training = "", int replicas = 2) {
  return "[ipu]\nauto_select_ipus = " + std::to_string(replicas) +
         "\n[pipeline]\ngradient_accumulation_count = " + std::to_string(4 / replicas) + "\n" + extra_pipeline +
         "[data]\ntrain = \"synthetic:samples=256,classes=3\"\nshuffle = false\n"
         "[training]\nsteps = 6\nsteps_per_execution = 2\n" + training;
}

std::vector<OutfeedTensor> echo_outfeed(const std::string& config_text, std::vector<size_t>* per_call = nullptr) {
  Config config = config::parse(config_text, "echo.toml");
  Session session(Model::parse(kEcho, "echo.ipu", config.model), config);
  std::vector<OutfeedTensor> got;
  session.train([&](const Progress&) {
    // The host reads the queue while training runs: each execution's elements are there.
    auto part = session.dequeue_outfeed();
    if (per_call != nullptr) {
      per_call->push_back(part.empty() ? 0 : static_cast<size_t>(part[0].shape[0]));
    }
    if (got.empty() || config.plain.training_outfeed_mode == OutfeedMode::Last) {
      if (!part.empty()) {
        got = std::move(part);
      }
      return;
    }
    for (size_t k = 0; k < part.size(); ++k) {
      got[k].shape[0] += part[k].shape[0];
      got[k].values.insert(got[k].values.end(), part[k].values.begin(), part[k].values.end());
    }
  });
  return got;
}

}  // namespace

TEST_CASE("the training outfeed: modes, accumulation, mask and loss on 2 replicas") {
  std::vector<size_t> per_call;
  const auto all = echo_outfeed(echo_config(""), &per_call);
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "loss");
  // 6 updates x 2 micro-batches, 2 replicas, a scalar loss and a [4, 4] copy of the input.
  CHECK(all[0].shape == std::vector<int64_t>{12, 2});
  CHECK(all[1].shape == std::vector<int64_t>{12, 2, 4, 4});
  CHECK(per_call == std::vector<size_t>{4, 4, 4});
  // Unshuffled, replica r's micro-batch m of update u is batch (2u + r) 2 + m of the stream:
  // element e = 2u + m of replica 1 holds the batch just after replica 0's last of that update.
  const auto element = [&](int64_t e, int64_t r) { return all[1].values[static_cast<size_t>((e * 2 + r) * 16)]; };
  // One replica of 4 micro-batches sees the same stream: its element 2 is replica 1's first.
  const auto one = echo_outfeed(echo_config("", "", 1));
  CHECK(one[1].shape == std::vector<int64_t>{24, 4, 4});
  CHECK(one[1].values[2 * 16] == element(0, 1));
  CHECK(one[1].values[5 * 16 + 3] == all[1].values[static_cast<size_t>((3 * 2 + 0) * 16 + 3)]);
  CHECK(element(0, 1) != element(0, 0));
  const auto summed = echo_outfeed(echo_config("accumulate_outfeed = true\n"));
  CHECK(summed[1].shape == std::vector<int64_t>{6, 2, 4, 4});
  CHECK(summed[1].values[16] == doctest::Approx(element(0, 1) + element(1, 1)));

  const auto last = echo_outfeed(echo_config("", "outfeed_mode = \"last\"\n"));
  CHECK(last[1].shape == std::vector<int64_t>{2, 4, 4});
  CHECK(last[1].values[16] == element(11, 1));

  const auto masked = echo_outfeed(echo_config("outfeed_mask = [false, true]\n"));
  REQUIRE(masked.size() == 1);
  CHECK(masked[0].name == "loss");
  const auto loss = echo_outfeed(echo_config("outfeed_loss = true\n"));
  REQUIRE(loss.size() == 1);
  CHECK(loss[0].shape == std::vector<int64_t>{12, 2});
  CHECK(loss[0].values == all[0].values);
}

TEST_CASE("an execution runs steps_per_execution x repeat_count updates") {
  Config config = config::parse(testing::synthetic_config(10, 0.05, "steps_per_execution = 2\n") +
                                    "[pipeline]\nrepeat_count = 2\ngradient_accumulation_count = 4\n",
                                "r.toml");
  Session session(Model::parse(testing::kMlp, "mlp.ipu", config.model), config);
  std::vector<size_t> calls;
  const TrainSummary summary = session.train([&](const Progress& p) { calls.push_back(p.records.size()); });
  CHECK(calls == std::vector<size_t>{4, 4, 2});
  CHECK(summary.samples == 10 * 4 * 16);
  CHECK(session.global_batch() == 64);
}

TEST_CASE("measured memory and simulated time match the plan, over capacity is a clear error") {
  const std::vector<std::string> pipelines = {
      "",
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 8\n",
      "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"interleaved\"\n"
      "gradient_accumulation_count = 4\n",
      "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ndevice_mapping = [0, 1]\n"
      "gradient_accumulation_count = 8\n",
      // Zero bubble: weight-gradient tasks of their own, with and without recomputation, and long
      // enough (over 1,024 instructions per IPU) for the buffer pass to fold its steady state.
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"zero_bubble\"\n"
      "gradient_accumulation_count = 5\n",
      "[ipu]\nauto_select_ipus = 2\nallow_recompute = true\n[pipeline]\ndevice_mapping = [0, 1]\n"
      "schedule = \"zero_bubble\"\ngradient_accumulation_count = 4\n",
      "[ipu]\nauto_select_ipus = 2\n[pipeline]\ndevice_mapping = [0, 1]\nschedule = \"zero_bubble\"\n"
      "gradient_accumulation_count = 200\n",
      // State and accumulators in remote memory: the IPU holds neither, and the streaming is on
      // the simulated clocks.
      "[ipu]\nauto_select_ipus = 2\n[ipu.io_tiles]\nnum_io_tiles = 64\nplace_ops_on_io_tiles = true\n"
      "[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 4\noffload_weight_update_variables = true\n"
      "offload_gradient_accumulation_buffers = true\n",
  };
  for (const std::string& p : pipelines) {
    CAPTURE(p);
    std::string text = testing::synthetic_config(8, 0.05) + p;
    text.replace(text.find("[optimizer]\n"), 12, "[optimizer]\ntype = \"adam\"\n");  // state to account for
    Config config = config::parse(text, "m.toml");
    Session session(Model::parse(testing::kMlp, "mlp.ipu", config.model), config);
    session.train();
    const RunReport report = session.run_report();
    for (const IpuReport& ipu : report.ipus) {
      CAPTURE(ipu.physical);
      CHECK(ipu.memory_peak > 0);
      // The engine takes every value from the arena the planner assigned, and its high-water mark
      // is where the planner's memory model puts the IPU's peak.
      CHECK(ipu.memory_peak == ipu.memory_estimate);
    }
    // The simulated clocks run the planner's cycle model: the run agrees with the plan. Under zero
    // bubble the last IPU ends a cycle with deferred weight-gradient passes while the first IPU may
    // already start the next cycle's forwards; the planner models one cycle at a time from a common
    // start, so the run is a little faster than planned there (by under 3% here), never slower.
    if (p.find("zero_bubble") == std::string::npos) {
      CHECK(report.simulated_cycles_per_update == doctest::Approx(report.planned_cycles_per_update).epsilon(1e-9));
    } else {
      CHECK(report.simulated_cycles_per_update <= report.planned_cycles_per_update * (1 + 1e-9));
      CHECK(report.simulated_cycles_per_update >= 0.97 * report.planned_cycles_per_update);
    }
    CHECK(report.simulated_bubble == doctest::Approx(report.planned_bubble).epsilon(1e-6));
    CHECK(report.updates == 8);
  }

  Config config = config::parse(testing::synthetic_config(2), "m.toml");
  Model model = Model::parse(testing::kMlp, "mlp.ipu", config.model);
  planner::Plan plan = planner::make_plan(graph_of(model), config);
  plan.decided.device.bytes_per_tile = 1;  // 1472 bytes per IPU: less than the weights
  // The dataset outlives the cluster, whose infeed threads read it.
  std::unique_ptr<data::Dataset> ds =
      data::open_dataset(config.plain.data_train, ".",
                         {data::Field{"image", DType::F32, {8, 8}}, data::Field{"label", DType::I32, {}}}, 7);
  Cluster cluster(plan, config::resolve(config));
  cluster.open_feeds({ds.get(), {0, 1}, Sampler(ds->size(), plan.micro_batch(), false, 7)}, 0, 1);
  try {
    cluster.execute(0, 1);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Runtime);
    CHECK(std::string(e.what()).find("IPU 0") != std::string::npos);
  }
  CHECK_THROWS_AS(cluster.execute(1, 1), Error);  // a failed cluster refuses to run again
}

TEST_CASE("the sequential accumulation order: one buffer per weight, measured = planned") {
  const std::string pipeline =
      "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 8\n";
  auto run = [&](const std::string& order) {
    std::string text = testing::synthetic_config(4, 0.05) + pipeline + order;
    text.replace(text.find("[optimizer]\n"), 12, "[optimizer]\ntype = \"adam\"\n");
    Config config = config::parse(text, "s.toml");
    Session session(Model::parse(testing::kMlp, "mlp.ipu", config.model), config);
    session.train();
    return session.run_report();
  };
  const RunReport canonical = run("");
  const RunReport sequential = run("gradient_accumulation_order = \"sequential\"\n");
  // Weights per IPU: features 64 x 32 + 32, classifier 32 x 10 + 10 (f32).
  const std::vector<int64_t> weights = {(64 * 32 + 32) * 4, (32 * 10 + 10) * 4};
  REQUIRE(sequential.ipus.size() == 4);
  for (size_t i = 0; i < sequential.ipus.size(); ++i) {
    const IpuReport& s = sequential.ipus[i];
    const IpuReport& c = canonical.ipus[i];
    CAPTURE(s.physical);
    CHECK(s.memory_peak == s.memory_estimate);
    CHECK(c.memory_peak == c.memory_estimate);
    // Replica r's leaves r x 8 .. r x 8 + 7: the canonical tree holds 3 partial sums at most,
    // the sequential order 1.
    CHECK(c.memory_estimate - s.memory_estimate == 2 * weights[static_cast<size_t>(s.ipu)]);
  }
}

TEST_CASE("IPUs that wait for each other fail with a deadlock error instead of hanging") {
  Config config = config::parse(testing::synthetic_config(4) +
                                    "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\n"
                                    "gradient_accumulation_count = 4\n",
                                "d.toml");
  Model model = Model::parse(testing::kMlp, "mlp.ipu", config.model);
  planner::Plan plan = planner::make_plan(graph_of(model), config);
  // IPU 0 never sends its first message: IPU 1 waits at the matching receive, IPU 0 at the
  // gradient coming back (or done), on both replicas.
  auto& program = plan.programs.ipus[0];
  const auto send = std::find_if(program.begin(), program.end(),
                                 [](const planner::Instr& in) { return in.kind == planner::InstrKind::Send; });
  REQUIRE(send != program.end());
  program.erase(send);
  plan.programs.arenas[0] = planner::assign_buffers(plan, 0);  // the arena follows the program
  // The dataset outlives the cluster, whose infeed threads read it.
  std::unique_ptr<data::Dataset> ds =
      data::open_dataset(config.plain.data_train, ".",
                         {data::Field{"image", DType::F32, {8, 8}}, data::Field{"label", DType::I32, {}}}, 7);
  Cluster cluster(plan, config::resolve(config));
  cluster.open_feeds({ds.get(), {0, 1}, Sampler(ds->size(), plan.micro_batch(), false, 7)}, 0, 1);
  try {
    cluster.execute(0, 1);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Internal);
    const std::string what = e.what();
    CHECK(what.find("deadlocked") != std::string::npos);
    CHECK(what.find("recv m0 <-0") != std::string::npos);
  }
}

TEST_CASE("16 virtual IPUs (4 stages x 4 replicas) train 200 steps and match one IPU") {
  const std::string model = R"(import nn
model tiny4(batch: int = 2) {
  input x: f32[batch, 8]
  input label: i32[batch]
  stage a {
    h0 = nn.dense(x, 8, activation = relu)
  }
  stage b {
    h1 = nn.dense(h0, 8, activation = relu)
  }
  stage c {
    h2 = nn.dense(h1, 8, activation = relu)
  }
  stage d {
    loss = mean(softmax_cross_entropy(nn.dense(h2, 4), label))
  }
  minimize loss
  output loss
}
)";
  const std::string base =
      "[data]\ntrain = \"synthetic:samples=512,classes=4\"\n[training]\nsteps = 200\nsteps_per_execution = 50\n";
  auto weights = [&](const std::string& text) {
    Config config = config::parse(text, "stress.toml");
    Session session(Model::parse(model, "tiny4.ipu", config.model), config);
    session.train();
    return session.weights();
  };
  const auto start = std::chrono::steady_clock::now();
  const auto cluster16 = weights(base +
                                 "[ipu]\nauto_select_ipus = 16\n[pipeline]\ndevice_mapping = [0, 1, 2, 3]\n"
                                 "schedule = \"interleaved\"\ngradient_accumulation_count = 4\n"
                                 "reduction_method = \"mean\"\n");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  MESSAGE("16 virtual IPUs, 200 updates: " << seconds << " s");
  const auto one = weights(base + "[pipeline]\ngradient_accumulation_count = 16\nreduction_method = \"mean\"\n");
  REQUIRE(cluster16.size() == one.size());
  for (size_t i = 0; i < one.size(); ++i) {
    CHECK(std::memcmp(cluster16[i].values.data(), one[i].values.data(), one[i].values.size() * 4) == 0);
  }
}

TEST_CASE("the op order inside a task changes memory as planned, never the weights") {
  std::vector<WeightInfo> reference;
  for (const char* algorithm : {"choose_best", "post_order", "clustering", "shortest_path", "look_ahead"}) {
    CAPTURE(algorithm);
    std::string text = testing::synthetic_config(6, 0.05) +
                       "[ipu]\nauto_select_ipus = 4\n[pipeline]\ndevice_mapping = [0, 1]\ngradient_accumulation_count = 4\n"
                       "[ipu.scheduling]\nalgorithm = \"" + algorithm + "\"\n";
    text.replace(text.find("[optimizer]\n"), 12, "[optimizer]\ntype = \"adam\"\n");
    Config config = config::parse(text, "m.toml");
    Session session(Model::parse(testing::kMlp, "mlp.ipu", config.model), config);
    session.train();
    for (const IpuReport& ipu : session.run_report().ipus) {
      CHECK(ipu.memory_peak == ipu.memory_estimate);
    }
    if (reference.empty()) {
      reference = session.weights();
    } else {
      CHECK(testing::same_bits(session.weights(), reference));
    }
  }
}

TEST_CASE("a reshape is a view of its input's bytes, and its input lives as long as the view") {
  // `b` is read after its input `a` was last read directly, `a + 1.0` dies at its reshape, and
  // `flatten(b)` views a view: every forward reshape shares its input's bytes, none copies.
  const std::string model_text = R"(import nn
model views(batch: int = 4) {
  input image: f32[batch, 8]
  input label: i32[batch]
  stage s {
    a = image * 2.0
    b = reshape(a, [batch, 2, 4])
    c = reshape(a + 1.0, [batch, 8])
    logits = nn.dense(a + c + flatten(b), 10)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
}
)";
  Config config =
      config::parse("[data]\ntrain = \"synthetic:samples=64,classes=10\"\n[training]\nsteps = 3\nseed = 7\n", "v.toml");
  Model model = Model::parse(model_text, "views.ipu", config.model);
  const planner::Plan plan = planner::make_plan(graph_of(model), config);
  const ir::Graph& g = plan.graph;
  const DeviceMemory memory(0, g, plan.programs.buffers.at(0), plan.programs.arenas.at(0), planner::host_scale(plan));
  const auto& program = plan.programs.ipus.at(0);
  const auto forward = std::find_if(program.begin(), program.end(),
                                    [](const planner::Instr& in) { return in.kind == planner::InstrKind::Forward; });
  REQUIRE(forward != program.end());
  const auto at = static_cast<int32_t>(forward - program.begin());
  int views = 0;
  for (ir::ValueId v = 0; v < g.size(); ++v) {
    const ir::Node& n = g.node(v);
    if (n.op != ir::OpKind::Reshape || n.phase != ir::Phase::Forward) {
      continue;
    }
    CAPTURE(v);
    CHECK(memory.tensor(v, 0, at).data == memory.tensor(n.inputs[0], 0, at).data);
    const planner::Arena& arena = plan.programs.arenas.at(0);
    const planner::Life& life = arena.lives.at(static_cast<size_t>(arena.find(v, 0, at)));
    CHECK(life.size == 0);
    REQUIRE(life.view_of >= 0);
    CHECK(arena.lives.at(static_cast<size_t>(life.view_of)).last_tick >= life.last_tick);
    ++views;
  }
  CHECK(views == 3);
  // The shared bytes change no value: the same model without reshapes trains to the same bits.
  std::string plain = model_text;
  plain.replace(plain.find("a + c + flatten(b)"), 18, "a + c + a");
  plain.replace(plain.find("c = reshape(a + 1.0, [batch, 8])"), 32, "c = a + 1.0");
  Session with_views(Model::parse(model_text, "views.ipu", config.model), config);
  with_views.train();
  Session without(Model::parse(plain, "views.ipu", config.model), config);
  without.train();
  CHECK(testing::same_bits(with_views.weights(), without.weights()));
}
