// `iputrain tune` on models it was not written around (issue 45): what it finds does not depend on
// what the model calls the parameters that size its stages, on whether it declares its stages at
// all (without them it is cut at its repeated blocks), or on its blocks being a loop; a head tied
// to the embedding goes back on the embedding's IPU whether the stages are sized, fixed or absent.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "iputrain/iputrain.hpp"
#include "iputrain/tune.hpp"
#include "planner/deadline.hpp"
#include "tune_files.hpp"

using namespace iputrain;

namespace {

// Equal blocks in four sized stages, the embedding table tied to the head in a fifth: the shape of
// Graphcore's BERT and GPT-2, small. `layers` is their checked total.
const std::string kLayered = R"(import nn

layer block(x: f32[b, d]) {
  return recomputation_checkpoint(nn.dense(x, d, activation = relu))
}

layer blocks(x: f32[b, d], n: int) {
  for i in 0..n {
    x = block(x)
  }
  return x
}

model layered(batch: int = 8, width: int = 64, vocab: int = 96, layers: int = 8,
              ipu0_layers: int = 2, ipu1_layers: int = 2, ipu2_layers: int = 2, ipu3_layers: int = 2) {
  assert ipu0_layers + ipu1_layers + ipu2_layers + ipu3_layers == layers, "the stages hold other than layers"
  input ids: i32[batch]
  input label: i32[batch]
  stage embed {
    param table: f32[vocab, width] = normal(stddev = 0.02)
    x = blocks(gather(table, ids), ipu0_layers)
  }
  stage body_1 {
    x = blocks(x, ipu1_layers)
  }
  stage body_2 {
    x = blocks(x, ipu2_layers)
  }
  stage body_3 {
    x = blocks(x, ipu3_layers)
  }
  stage head {
    loss = mean(softmax_cross_entropy(x @ transpose(table), label))
  }
  minimize loss
  output loss
}
)";

const std::string kRun =
    "[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.01\n"
    "[data]\ntrain = \"synthetic:samples=512,classes=96\"\n"
    "[training]\nsteps = 4\nseed = 3\n"
    "[ipu]\nauto_select_ipus = 8\n";

std::string write(const std::string& name, const std::string& text) {
  return tune_test::write("iputrain_tune_model_test", name, text);
}

// The model with its sizing parameters renamed, as someone else would have written them.
std::string renamed(std::string text) {
  text = std::regex_replace(text, std::regex(R"(\bipu0_layers\b)"), "n_embed");
  text = std::regex_replace(text, std::regex(R"(\bipu1_layers\b)"), "first_span");
  text = std::regex_replace(text, std::regex(R"(\bipu2_layers\b)"), "mid");
  text = std::regex_replace(text, std::regex(R"(\bipu3_layers\b)"), "tail_count");
  return std::regex_replace(text, std::regex(R"(\blayers\b)"), "depth");
}

// The model with fixed stages: the sizes written into it, no parameter left to size them.
std::string fixed_sizes() {
  std::string fixed =
      std::regex_replace(kLayered, std::regex(R"(layers: int = 8,\s*ipu0_layers[^)]*\))"), "layers: int = 8)");
  fixed = std::regex_replace(fixed, std::regex(R"(  assert[^\n]*\n)"), "");
  return std::regex_replace(fixed, std::regex(R"(ipu[0-3]_layers)"), "2");
}

TuneResult tune_to_the_end(const std::string& model, const std::string& config) {
  const planner::TickClock frozen(std::chrono::nanoseconds(0));
  TuneRequest request;
  request.model_path = model;
  request.config_path = config;
  request.global_batch = 64;
  request.time_seconds = 300;
  request.top = 3;
  return tune(request);
}

// `b` ranks the same plans as `a`, with the same figures.
void check_same_ranked(const TuneResult& a, const TuneResult& b) {
  REQUIRE(!a.ranked.empty());
  REQUIRE(b.ranked.size() == a.ranked.size());
  for (size_t i = 0; i < a.ranked.size(); ++i) {
    CAPTURE(a.ranked[i].summary);
    CHECK(b.ranked[i].samples_per_second == a.ranked[i].samples_per_second);
    CHECK(b.ranked[i].peak_bytes == a.ranked[i].peak_bytes);
    CHECK(b.ranked[i].summary == a.ranked[i].summary);
  }
}

}  // namespace

TEST_CASE("what tune finds does not depend on the names of the parameters that size the stages") {
  const std::string config = write("run.toml", kRun);
  const TuneResult own = tune_to_the_end(write("layered.ipu", kLayered), config);
  const TuneResult other = tune_to_the_end(write("renamed.ipu", renamed(kLayered)), config);
  check_same_ranked(own, other);
  // The search moved blocks between the stages: some layout of the space is not the declared one.
  bool moved = false;
  for (const TunedPlan& t : own.ranked) {
    for (const std::string& c : t.changes) {
      moved = moved || (c.rfind("model.ipu", 0) == 0 && c != "model.ipu0_layers=2" && c != "model.ipu1_layers=2" &&
                        c != "model.ipu2_layers=2" && c != "model.ipu3_layers=2");
    }
  }
  CHECK(moved);
}

TEST_CASE("a head tied to the embedding goes back on the embedding's IPU, sized stages or fixed") {
  const std::string config = write("run4.toml", kRun + "[tune]\nipus_per_replica = [4, 4]\n");
  const std::vector<std::pair<std::string, std::string>> models = {{"tied.ipu", kLayered},
                                                                   {"tied_fixed.ipu", fixed_sizes()}};
  for (const auto& [name, text] : models) {
    const TuneResult r = tune_to_the_end(write(name, text), config);
    REQUIRE(!r.ranked.empty());
    CAPTURE(r.ranked.front().summary);
    CHECK(r.ranked.front().summary.find("on IPUs [0, 1, 2, 3, 0]") != std::string::npos);
  }
}

TEST_CASE("blocks written out by hand tune as the same blocks written as a loop") {
  const std::string config = write("run_hand.toml", kRun);
  const std::string loop = fixed_sizes();
  const std::string hand = std::regex_replace(loop, std::regex(R"(blocks\((.*), 2\))"), "block(block($1))");
  REQUIRE(hand.find("= blocks(") == std::string::npos);
  const TuneResult a = tune_to_the_end(write("loop.ipu", loop), config);
  const TuneResult b = tune_to_the_end(write("hand.ipu", hand), config);
  check_same_ranked(a, b);
}

TEST_CASE("a model without its declared stages tunes as fast, cut at its blocks with the tied head on IPU 0") {
  const std::string config = write("run_unstaged.toml", kRun + "[tune]\nipus_per_replica = [1, 4]\n");
  const size_t body = kLayered.find("model layered(");
  std::string flat = kLayered.substr(body);
  flat = std::regex_replace(flat, std::regex(R"(\n  stage \w+ \{)"), "");
  flat = std::regex_replace(flat, std::regex(R"(\n  \})"), "");
  flat = kLayered.substr(0, body) + flat;
  REQUIRE(flat.find("stage ") == std::string::npos);
  const TuneResult staged = tune_to_the_end(write("staged.ipu", kLayered), config);
  const TuneResult unstaged = tune_to_the_end(write("unstaged.ipu", flat), config);
  REQUIRE(!staged.ranked.empty());
  REQUIRE(!unstaged.ranked.empty());
  const TunedPlan& a = staged.ranked.front();
  const TunedPlan& b = unstaged.ranked.front();
  CAPTURE(a.summary);
  CAPTURE(b.summary);
  CHECK(b.samples_per_second == doctest::Approx(a.samples_per_second).epsilon(0.02));
  // Both put the blocks alike: the staged model's layers per IPU are the unstaged one's blocks per IPU.
  std::smatch layers;
  std::smatch blocks;
  REQUIRE(std::regex_search(a.summary, layers, std::regex(R"(layers per IPU (\[[0-9, ]+\]))")));
  REQUIRE(std::regex_search(b.summary, blocks,
                            std::regex(R"(onto IPUs \[0, 1, 2, 3, 0\], blocks per IPU (\[[0-9, ]+\]))")));
  CHECK(layers[1].str() == blocks[1].str());
}
