// nn.embedding(serialization_factor = N) and nn.serialized_matmul: the seed's serialized lookup
// and product, written in the model language. They train to the weights the plain ops give: the
// lookup bit for bit, the product to rounding (every cut splits a sum of the forward or backward
// pass into partial sums).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "iputrain/iputrain.hpp"
#include "test_models.hpp"

using namespace iputrain;

namespace {

const std::string kModel = R"(import nn

model serial(batch: int = 4, lookup: int = 1, factor: int = 1, dimension: str = "b_rows") {
  input ids: i32[batch, 3]
  input label: i32[batch, 3]
  e = nn.embedding(ids, 12, 8, serialization_factor = lookup)
  param decoder: f32[12, 8] = normal(stddev = 0.3)
  if factor == 1 {
    logits = e @ transpose(decoder)
  } else {
    logits = nn.serialized_matmul(e, decoder, factor, dimension = dimension, transpose_b = true)
  }
  loss = mean(softmax_cross_entropy(logits, label))
  minimize loss
  output loss
}
)";

std::vector<WeightInfo> train(int lookup, int factor, const std::string& dimension) {
  Config config =
      config::parse("[model]\nlookup = " + std::to_string(lookup) + "\nfactor = " + std::to_string(factor) +
                        "\ndimension = \"" + dimension +
                        "\"\n[optimizer]\ntype = \"sgd\"\nlearning_rate = 0.5\n"
                        "[data]\ntrain = \"synthetic:samples=256,classes=12\"\n[training]\nsteps = 5\nseed = 3\n",
                    "serial.toml");
  Session session(Model::parse(kModel, "serial.ipu", config.model), config);
  session.train();
  return session.weights();
}

float largest_difference(const std::vector<WeightInfo>& a, const std::vector<WeightInfo>& b) {
  float most = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < a[i].values.size(); ++k) {
      most = std::max(most, std::abs(a[i].values[k] - b[i].values[k]));
    }
  }
  return most;
}

}  // namespace

TEST_CASE("serialized lookups and products train to the plain ops' weights") {
  const std::vector<WeightInfo> plain = train(1, 1, "b_rows");
  SUBCASE("the lookup in three and four slices of the vocabulary: the same bits") {
    CHECK(testing::same_bits(train(3, 1, "b_rows"), plain));
    CHECK(testing::same_bits(train(4, 1, "b_rows"), plain));
  }
  for (const auto& [factor, dimension] : std::vector<std::pair<int, std::string>>{
           {3, "b_rows"}, {4, "b_rows"}, {3, "a_columns"}, {2, "a_rows_b_columns"}, {4, "a_rows_b_columns"}}) {
    CAPTURE(dimension);
    CAPTURE(factor);
    const std::vector<WeightInfo> cut = train(2, factor, dimension);
    CHECK(largest_difference(cut, plain) < 1e-5f);
    CHECK_FALSE(testing::same_bits(cut, plain));  // the cut is real: some sum was split
  }
}

TEST_CASE("a serialization factor that does not divide the dimension is a located error") {
  Config config = config::parse("[model]\nlookup = 5\n", "serial.toml");
  try {
    (void)Model::parse(kModel, "serial.ipu", config.model);
    FAIL("the model elaborated");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("does not divide") != std::string::npos);
  }
}
