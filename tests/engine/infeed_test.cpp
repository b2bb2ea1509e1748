#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "engine/infeed.hpp"
#include "iputrain/error.hpp"

using iputrain::engine::Sampler;

TEST_CASE("a shuffled epoch visits every whole-batch sample once, and epochs differ") {
  Sampler s(103, 10, /*shuffle=*/true, 5);
  CHECK(s.steps_per_epoch() == 10);
  std::vector<int64_t> idx(10);
  std::multiset<int64_t> epoch0;
  std::vector<int64_t> first0;
  for (int64_t step = 0; step < 10; ++step) {
    s.batch_indices(step, idx.data());
    epoch0.insert(idx.begin(), idx.end());
    if (step == 0) {
      first0 = idx;
    }
  }
  CHECK(epoch0.size() == 100);
  CHECK(std::set<int64_t>(epoch0.begin(), epoch0.end()).size() == 100);
  CHECK(*epoch0.rbegin() < 103);
  s.batch_indices(10, idx.data());
  CHECK(idx != first0);
}

TEST_CASE("the order depends only on the seed and the step") {
  Sampler a(50, 5, true, 9);
  Sampler b(50, 5, true, 9);
  std::vector<int64_t> x(5), y(5);
  a.batch_indices(23, x.data());  // jump straight into epoch 2
  for (int64_t step = 0; step <= 23; ++step) {
    b.batch_indices(step, y.data());
  }
  CHECK(x == y);
}

TEST_CASE("without shuffling, batches are in dataset order") {
  Sampler s(20, 4, false, 1);
  std::vector<int64_t> idx(4);
  s.batch_indices(6, idx.data());  // epoch 1, batch 1
  CHECK(idx == std::vector<int64_t>{4, 5, 6, 7});
}

TEST_CASE("a dataset smaller than one batch is an error") {
  CHECK_THROWS_AS(Sampler(3, 4, false, 1), iputrain::Error);
}
