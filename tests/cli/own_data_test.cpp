// Issue 14, "your own data": small classifiers trained end to end from npy, csv, jsonl and
// image-folder sources the test writes (NumPy, libpng), the same samples in each array format
// training to the same weights, and `iputrain check` listing an image folder's classes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "../data/image_writer.hpp"
#include "../data/numpy_writer.hpp"
#include "../data/temp_dir.hpp"
#include "iputrain/iputrain.hpp"
#include "run_cli.hpp"

using namespace iputrain;

namespace {

// Two Gaussian blobs in 4 dimensions, centred at -1.5 and +1.5 in every coordinate.
const std::string kBlobs = R"(import nn
model blobs(batch: int = 16) {
  input point: f32[batch, 4]
  input label: i32[batch]
  stage s {
    h = nn.dense(point, 16, activation = relu)
    logits = nn.dense(h, 2)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
  output accuracy = mean(cast(argmax(logits, axis = -1) == label, dtype = "f32"))
}
)";

// 8 x 8 grey pictures; the pixels arrive as 0..255 and the model scales them where it can be seen.
const std::string kPictures = R"(import nn
model pictures(batch: int = 16) {
  input image: f32[batch, 8, 8]
  input label: i32[batch]
  stage s {
    h = nn.dense(flatten(image / 255.0), 16, activation = relu)
    logits = nn.dense(h, 2)
    loss = mean(softmax_cross_entropy(logits, label))
  }
  minimize loss
  output loss
  output accuracy = mean(cast(argmax(logits, axis = -1) == label, dtype = "f32"))
}
)";

std::string config_toml(const std::string& train, const std::string& test) {
  return "[optimizer]\nlearning_rate = 0.05\n[data]\ntrain = \"" + train + "\"\ntest = \"" + test +
         "\"\n[training]\nsteps = 150\nseed = 5\n";
}

double test_accuracy(const std::string& model_text, const std::string& config_text) {
  Config c = config::parse(config_text, "own_data.toml");
  Session session(Model::parse(model_text, "own_data.ipu", c.model), c);
  const double before = session.evaluate("test").means.at("accuracy");
  session.train();
  const double after = session.evaluate("test").means.at("accuracy");
  MESSAGE("test accuracy " << before << " before training, " << after << " after");
  return after;
}

// kBlobs trained for 40 shuffled steps from `train`: its weights before and after.
std::pair<std::vector<WeightInfo>, std::vector<WeightInfo>> trained_weights(const std::string& train) {
  Config c = config::parse(
      "[optimizer]\nlearning_rate = 0.05\n[data]\ntrain = \"" + train + "\"\n[training]\nsteps = 40\nseed = 5\n",
      "own_data.toml");
  Session session(Model::parse(kBlobs, "own_data.ipu", c.model), c);
  std::vector<WeightInfo> before = session.weights();
  session.train();
  return {std::move(before), session.weights()};
}

// The weights' values, bit for bit.
bool same_bits(const std::vector<WeightInfo>& a, const std::vector<WeightInfo>& b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].values.size() != b[i].values.size() ||
        std::memcmp(a[i].values.data(), b[i].values.data(), a[i].values.size() * sizeof(float)) != 0) {
      return false;
    }
  }
  return true;
}

// Writes split/<class>/NNN.png: class "bright" around 190, class "dark" around 60, noise ±40.
void write_pictures(const std::filesystem::path& root, int per_class, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-40, 40);
  for (const auto& [name, level] : {std::pair<std::string, int>{"bright", 190}, {"dark", 60}}) {
    std::filesystem::create_directories(root / name);
    for (int i = 0; i < per_class; ++i) {
      std::vector<uint8_t> px(64);
      for (uint8_t& p : px) {
        p = static_cast<uint8_t>(std::clamp(level + noise(rng), 0, 255));
      }
      test::write_png((root / name / (std::to_string(1000 + i) + ".png")).string(), 8, 8, 1, px);
    }
  }
}

}  // namespace

TEST_CASE("own data: a classifier trained from npy files reaches high test accuracy") {
  test::TempDir dir("own_npy");
  test::run_numpy(dir.path(), R"(
rng = np.random.default_rng(3)
for split, n in (("train", 512), ("test", 256)):
    os.makedirs(split, exist_ok=True)
    label = rng.integers(0, 2, n)
    point = rng.normal(0.0, 1.0, (n, 4)) + (label[:, None] * 3.0 - 1.5)
    np.save(split + "/point.npy", point)   # float64 -> the input's f32
    np.save(split + "/label.npy", label)   # int64 -> the input's i32
)");
  CHECK(test_accuracy(kBlobs, config_toml("npy:" + (dir / "train"), "npy:" + (dir / "test"))) > 0.9);
}

TEST_CASE("own data: a classifier trained from csv files reaches high test accuracy") {
  test::TempDir dir("own_csv");
  test::run_numpy(dir.path(), R"(
rng = np.random.default_rng(4)
for split, n in (("train", 512), ("test", 256)):
    label = rng.integers(0, 2, n)
    point = rng.normal(0.0, 1.0, (n, 4)) + (label[:, None] * 3.0 - 1.5)
    with open(split + ".csv", "w") as f:
        f.write("point.0,point.1,point.2,point.3,label\n")
        for p, l in zip(point, label):
            f.write(",".join(repr(float(v)) for v in p) + "," + str(int(l)) + "\n")
)");
  CHECK(test_accuracy(kBlobs, config_toml("csv:" + (dir / "train.csv"), "csv:" + (dir / "test.csv"))) > 0.9);
}

TEST_CASE("own data: the same samples as npy, csv and jsonl train to bitwise the same weights") {
  test::TempDir dir("own_jsonl");
  test::run_numpy(dir.path(), R"(
import json
rng = np.random.default_rng(6)
n = 256
label = rng.integers(0, 2, n)
point = rng.normal(0.0, 1.0, (n, 4)) + (label[:, None] * 3.0 - 1.5)
os.makedirs("npy", exist_ok=True)
np.save("npy/point.npy", point)
np.save("npy/label.npy", label)
with open("d.csv", "w") as f:
    f.write("point.0,point.1,point.2,point.3,label\n")
    for p, l in zip(point, label):
        f.write(",".join(repr(float(v)) for v in p) + "," + str(int(l)) + "\n")
with open("d.jsonl", "w") as f:
    for p, l in zip(point, label):
        f.write(json.dumps({"label": int(l), "point": p.tolist()}) + "\n")
)");
  const auto npy = trained_weights("npy:" + (dir / "npy"));
  CHECK_FALSE(same_bits(npy.first, npy.second));  // training moved the weights
  const auto csv = trained_weights("csv:" + (dir / "d.csv"));
  const auto jsonl = trained_weights("jsonl:" + (dir / "d.jsonl"));
  CHECK(same_bits(npy.first, jsonl.first));
  CHECK(same_bits(csv.second, npy.second));
  CHECK(same_bits(jsonl.second, npy.second));
}

TEST_CASE("own data: a classifier trained from an image folder reaches high test accuracy") {
  test::TempDir dir("own_images");
  write_pictures(dir.path() / "train", 128, 1);
  write_pictures(dir.path() / "test", 64, 2);
  CHECK(test_accuracy(kPictures, config_toml("images:" + (dir / "train"), "images:" + (dir / "test"))) > 0.9);
}

TEST_CASE("own data: check lists an image folder's classes, and refuses a folder of the wrong size") {
  test::TempDir dir("own_check");
  write_pictures(dir.path() / "train", 2, 1);
  write_pictures(dir.path() / "test", 2, 2);
  std::ofstream(dir / "m.ipu") << kPictures;
  std::ofstream(dir / "c.toml") << config_toml("images:train", "images:test");
  const cli_test::Run r = cli_test::iputrain("check " + (dir / "m.ipu") + " " + (dir / "c.toml"));
  // Listed, then refused as train refuses it: 4 pictures hold no micro-batch of the model's 16.
  CHECK(r.status == 1);
  CHECK(r.out.find("fewer than one batch") != std::string::npos);
  const size_t train = r.out.find("data.train: images:");
  const size_t test = r.out.find("data.test: images:");
  REQUIRE(train != std::string::npos);
  REQUIRE(test != std::string::npos);
  CHECK(r.out.find("  classes: 0 bright, 1 dark\n", train) < test);
  CHECK(r.out.find("  classes: 0 bright, 1 dark\n", test) != std::string::npos);

  std::ofstream(dir / "big.ipu") << std::string(kPictures).replace(kPictures.find("8, 8]"), 5, "9, 9]");
  const cli_test::Run wrong = cli_test::iputrain("check " + (dir / "big.ipu") + " " + (dir / "c.toml"));
  CHECK(wrong.status != 0);
  CHECK(wrong.out.find("is 8x8 (height x width) but the model's input `image: f32[9, 9]` takes 9x9 images") !=
        std::string::npos);
  CHECK(wrong.out.find("c.toml:") != std::string::npos);  // located at the config's data.train
}

TEST_CASE("own data: an image damaged after open stops training with an error naming the file") {
  test::TempDir dir("own_damaged");
  write_pictures(dir.path() / "train", 16, 1);
  const std::filesystem::path victim = dir.path() / "train" / "dark" / "1003.png";
  std::filesystem::resize_file(victim, std::filesystem::file_size(victim) / 2);
  // resize= skips the size check at open, so the damage is found by the infeed thread's read.
  Config c = config::parse(config_toml("images:" + (dir / "train") + ",resize=nearest", ""), "own_data.toml");
  Session session(Model::parse(kPictures, "own_data.ipu", c.model), c);
  try {
    session.train();
    FAIL("training on a damaged image succeeded");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Data);
    CHECK(std::string(e.what()).find("1003.png` is a damaged PNG file") != std::string::npos);
  }
}
