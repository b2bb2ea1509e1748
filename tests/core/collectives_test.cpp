// The collective ops across replicas: R interpreters on R threads, joined by a link that hands each
// the others' operands (as the cluster's ReplicaExchange does), checked against references written
// from the ops' definitions, and their gradients against central differences of the loss summed
// over every replica, sum_r sum(out_r * dy_r), which is what the replicas train together.
#include <doctest/doctest.h>

#include <array>
#include <barrier>
#include <functional>
#include <thread>

#include "core/rng.hpp"
#include "tests/core/ref_util.hpp"

namespace iputrain::test {

namespace {
namespace collectives_test {

// Copies each operand into staging, as the cluster's ReplicaExchange does: a replica may free or
// overwrite its own buffer as soon as its kernel is done, while another still reads.
struct Meeting {
  explicit Meeting(int32_t r) : replicas(r), sync(r) {
    for (auto& s : staging) {
      s.resize(static_cast<size_t>(r));
    }
    for (auto& p : posted) {
      p.assign(static_cast<size_t>(r), nullptr);
    }
  }
  int32_t replicas;
  std::barrier<> sync;
  std::array<std::vector<std::vector<std::byte>>, 2> staging;  // two generations
  std::array<std::vector<const std::byte*>, 2> posted;
};

class ThreadLink final : public ir::ReplicaLink {
 public:
  ThreadLink(Meeting& m, int32_t r) : m_(m), r_(r) {}
  int32_t replica() const override { return r_; }
  int32_t replicas() const override { return m_.replicas; }
  std::span<const std::byte* const> exchange(const void* data, size_t bytes) override {
    const auto gen = static_cast<size_t>(gen_++ % 2);
    auto& mine = m_.staging[gen][static_cast<size_t>(r_)];
    const auto* from = static_cast<const std::byte*>(data);
    mine.assign(from, from + bytes);
    m_.posted[gen][static_cast<size_t>(r_)] = mine.data();
    m_.sync.arrive_and_wait();
    return m_.posted[gen];
  }

 private:
  Meeting& m_;
  int32_t r_;
  int64_t gen_ = 0;
};

// One node of `op` on x (and, for the gradient, its backward from dy).
struct Case {
  ir::Graph g;
  ir::ValueId x, y, dy, dx = ir::kNoValue;
  Case(OpKind op, const TensorType& in, Attrs attrs) {
    x = g.add_input("x", in);
    y = g.add(op, {x}, std::move(attrs));
    const TensorType out = g.type(y);  // a copy: add_input may move the graph's types
    dy = g.add_input("dy", out);
    if (ir::op_def(op).backward != nullptr) {
      dx = ir::op_def(op).backward(g, y, dy)[0];
    }
  }
};

// Runs the case on `xs.size()` replicas with operands xs and output gradients dys; returns per
// replica the output and (when there is a backward) the input gradient.
std::vector<std::pair<Values, Values>> run(const Case& c, const std::vector<Values>& xs,
                                           const std::vector<Values>& dys) {
  const auto R = static_cast<int32_t>(xs.size());
  Meeting meeting(R);
  std::vector<std::pair<Values, Values>> out(xs.size());
  std::vector<std::thread> threads;
  for (int32_t r = 0; r < R; ++r) {
    threads.emplace_back([&, r] {
      ThreadLink link(meeting, r);
      Interpreter interp(c.g);
      interp.ctx.replicas = &link;
      interp.set(c.x, xs[static_cast<size_t>(r)]);
      interp.set(c.dy, dys[static_cast<size_t>(r)]);
      interp.run();
      out[static_cast<size_t>(r)] = {interp.get(c.y), c.dx == ir::kNoValue ? Values{} : interp.get(c.dx)};
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  return out;
}

Values random_values(int64_t n, uint64_t seed) {
  Rng rng(seed, "collectives_test");
  Values v(static_cast<size_t>(n));
  for (double& e : v) {
    e = 4.0 * rng.uniform() - 2.0;
  }
  return v;
}

using Reference = std::function<Values(const std::vector<Values>& xs, int32_t r)>;

// Forward against `ref` on every replica, then every input gradient against central differences.
void check(OpKind op, const TensorType& in, const Attrs& attrs, int32_t R, const Reference& ref) {
  const Case c(op, in, attrs);
  std::vector<Values> xs, dys;
  for (int32_t r = 0; r < R; ++r) {
    xs.push_back(random_values(in.numel(), 100 + static_cast<uint64_t>(r)));
    dys.push_back(random_values(c.g.type(c.y).numel(), 200 + static_cast<uint64_t>(r)));
  }
  const auto got = run(c, xs, dys);
  for (int32_t r = 0; r < R; ++r) {
    CAPTURE(r);
    CHECK(mismatches(got[static_cast<size_t>(r)].first, ref(xs, r), 1e-6, 1e-6) == 0);
  }
  if (c.dx == ir::kNoValue) {
    return;
  }
  auto loss = [&](const std::vector<Values>& at) {
    double sum = 0;
    const auto outs = run(c, at, dys);
    for (size_t r = 0; r < outs.size(); ++r) {
      for (size_t i = 0; i < outs[r].first.size(); ++i) {
        sum += outs[r].first[i] * dys[r][i];
      }
    }
    return sum;
  };
  const double h = 1e-2;
  for (int32_t q = 0; q < R; ++q) {
    Values fd(xs[static_cast<size_t>(q)].size());
    for (size_t i = 0; i < fd.size(); ++i) {
      auto plus = xs;
      auto minus = xs;
      plus[static_cast<size_t>(q)][i] += h;
      minus[static_cast<size_t>(q)][i] -= h;
      fd[i] = (loss(plus) - loss(minus)) / (2 * h);
    }
    CAPTURE(q);
    CHECK(mismatches(got[static_cast<size_t>(q)].second, fd, 1e-3, 1e-3) == 0);
  }
}

}  // namespace collectives_test
}  // namespace

using namespace collectives_test;

TEST_CASE("cross_replica_sum and its mean across replicas, in groups, with gradients") {
  for (const auto& [group, mean] : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {2, 0}, {0, 1}, {2, 1}}) {
    CAPTURE(group);
    CAPTURE(mean);
    check(OpKind::CrossReplicaSum, f32({2, 3}), Attrs{{"group", group}, {"mean", mean}}, 4,
          [group, mean](const std::vector<Values>& xs, int32_t r) {
            const int32_t g = group == 0 ? 4 : static_cast<int32_t>(group);
            Values out(xs[0].size(), 0.0);
            for (int32_t q = r / g * g; q < r / g * g + g; ++q) {
              for (size_t i = 0; i < out.size(); ++i) {
                out[i] += xs[static_cast<size_t>(q)][i] / (mean != 0 ? g : 1);
              }
            }
            return out;
          });
  }
}

TEST_CASE("all_gather and reduce_scatter across replicas, with gradients") {
  for (int64_t group : {2, 4}) {
    CAPTURE(group);
    const auto g = static_cast<int32_t>(group);
    check(OpKind::AllGather, f32({3}), Attrs{{"group", group}}, 4, [g](const std::vector<Values>& xs, int32_t r) {
      Values out;
      for (int32_t q = r / g * g; q < r / g * g + g; ++q) {
        out.insert(out.end(), xs[static_cast<size_t>(q)].begin(), xs[static_cast<size_t>(q)].end());
      }
      return out;
    });
    check(OpKind::ReduceScatter, f32({4, 2}), Attrs{{"group", group}}, 4,
          [g](const std::vector<Values>& xs, int32_t r) {
            const size_t block = 8 / static_cast<size_t>(g);
            Values out(block, 0.0);
            for (int32_t q = r / g * g; q < r / g * g + g; ++q) {
              for (size_t i = 0; i < block; ++i) {
                out[i] += xs[static_cast<size_t>(q)][static_cast<size_t>(r % g) * block + i];
              }
            }
            return out;
          });
  }
}

TEST_CASE("all_to_all across replicas, with gradients") {
  // x[4, 3] split along 0 into two chunks of 2 rows, concatenated along 1: member j gets [2, 6],
  // columns 3 i .. 3 i + 2 from member i's rows 2 j, 2 j + 1.
  check(OpKind::AllToAll, f32({4, 3}),
        Attrs{{"split_axis", int64_t{0}}, {"concat_axis", int64_t{1}}, {"group", int64_t{2}}}, 4,
        [](const std::vector<Values>& xs, int32_t r) {
          const int32_t first = r / 2 * 2;
          const int32_t j = r % 2;
          Values out(12);
          for (int64_t row = 0; row < 2; ++row) {
            for (int32_t i = 0; i < 2; ++i) {
              for (int64_t col = 0; col < 3; ++col) {
                out[static_cast<size_t>(row * 6 + i * 3 + col)] =
                    xs[static_cast<size_t>(first + i)][static_cast<size_t>((j * 2 + row) * 3 + col)];
              }
            }
          }
          return out;
        });
  // The same axis: chunk j of every member, stacked in member order.
  check(OpKind::AllToAll, f32({4}),
        Attrs{{"split_axis", int64_t{0}}, {"concat_axis", int64_t{0}}, {"group", int64_t{4}}}, 4,
        [](const std::vector<Values>& xs, int32_t r) {
          Values out;
          for (int32_t i = 0; i < 4; ++i) {
            out.push_back(xs[static_cast<size_t>(i)][static_cast<size_t>(r)]);
          }
          return out;
        });
}

TEST_CASE("replication_index names each replica") {
  check(OpKind::ReplicationIndex, i32({}), {}, 3,
        [](const std::vector<Values>&, int32_t r) { return Values{static_cast<double>(r)}; });
}

}  // namespace iputrain::test
