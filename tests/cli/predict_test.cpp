// `iputrain predict`: per-sample outputs as .npy and CSV, the padded last batch, agreement with
// eval, and the errors a user meets.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../scratch_dir.hpp"
#include "run_cli.hpp"

namespace {

using cli_test::Run;

// One folder per test process: ctest runs the cases of this file in parallel processes.
std::string predict_temp(const std::string& name) {
  const auto dir = iputrain_tests::scratch_dir("predict");
  return (dir / name).string();
}

const std::string kPredictModel = "cases/predict.ipu cases/predict.toml";

bool printed(const Run& r, const std::string& text) {
  if (r.out.find(text) != std::string::npos) {
    return true;
  }
  MESSAGE("output was:\n" << r.out);
  return false;
}

std::string trained_weights() {
  static const std::string w = [] {
    const std::string path = predict_temp("w.safetensors");
    const Run t = cli_test::iputrain("train " + kPredictModel + " -q --no-eval --save " + path);
    REQUIRE(t.status == 0);
    return path;
  }();
  return w;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Npy {
  std::string header;
  std::string data;
};

Npy read_npy(const std::string& path) {
  const std::string bytes = read_file(path);
  REQUIRE(bytes.size() > 10);
  REQUIRE(bytes.compare(0, 6, "\x93NUMPY") == 0);
  const size_t len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  CHECK((10 + len) % 64 == 0);
  return {bytes.substr(10, len), bytes.substr(10 + len)};
}

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read_file(path));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> row;
    std::istringstream cells(line);
    std::string cell;
    while (std::getline(cells, cell, ',')) {
      row.push_back(cell);
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<float> probs_of(const Npy& npy) {
  std::vector<float> v(npy.data.size() / sizeof(float));
  std::memcpy(v.data(), npy.data.data(), npy.data.size());
  return v;
}

}  // namespace

TEST_CASE("predict writes one .npy per output for every sample, the padded tail included") {
  const std::string dir = predict_temp("arrays/");
  const Run r = cli_test::iputrain("predict " + kPredictModel + " --weights " + trained_weights() + " -o " + dir);
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("probs: f32[61, 10] over the test split") != std::string::npos);
  const Npy probs = read_npy(dir + "probs.npy");
  CHECK(probs.header.find("'descr': '<f4'") != std::string::npos);
  CHECK(probs.header.find("'shape': (61, 10)") != std::string::npos);
  REQUIRE(probs.data.size() == 61 * 10 * sizeof(float));
  const Npy pred = read_npy(dir + "prediction.npy");
  CHECK(pred.header.find("'descr': '<i4'") != std::string::npos);
  CHECK(pred.header.find("'shape': (61,)") != std::string::npos);
  REQUIRE(pred.data.size() == 61 * sizeof(int32_t));
  const Npy correct = read_npy(dir + "correct.npy");
  CHECK(correct.header.find("'descr': '|b1'") != std::string::npos);
  CHECK(!std::filesystem::exists(dir + "loss.npy"));  // one value per batch: not a prediction

  // Each row is a distribution and its argmax is the `prediction` output.
  const std::vector<float> p = probs_of(probs);
  std::vector<int32_t> cls(61);
  std::memcpy(cls.data(), pred.data.data(), pred.data.size());
  for (int i = 0; i < 61; ++i) {
    float sum = 0;
    int best = 0;
    for (int c = 0; c < 10; ++c) {
      sum += p[i * 10 + c];
      best = p[i * 10 + c] > p[i * 10 + best] ? c : best;
    }
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(cls[i] == best);
  }

  // A sample's row does not depend on its batch: one sample per batch gives the same rows, so
  // padding the last batch changed nothing.
  const std::string one = predict_temp("one/");
  const Run r1 = cli_test::iputrain("predict " + kPredictModel + " --set model.batch=1 --weights " + trained_weights() +
                                    " -o " + one + " --output probs");
  REQUIRE(r1.status == 0);
  const std::vector<float> p1 = probs_of(read_npy(one + "probs.npy"));
  REQUIRE(p1.size() == p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    CHECK(p1[i] == doctest::Approx(p[i]).epsilon(1e-5));
  }
}

TEST_CASE("predict's CSV agrees with eval's accuracy over every sample") {
  const std::string csv = predict_temp("pred.csv");
  const Run r = cli_test::iputrain("predict " + kPredictModel + " --weights " + trained_weights() + " -o " + csv +
                                   " --output prediction --output correct");
  INFO(r.out);
  REQUIRE(r.status == 0);
  const auto rows = read_csv(csv);
  REQUIRE(rows.size() == 62);
  CHECK(rows[0] == std::vector<std::string>{"sample", "prediction", "correct"});
  int right = 0;
  for (int i = 1; i <= 61; ++i) {  // eval covers the 7 whole batches and the last 5 (issue 44)
    right += rows[static_cast<size_t>(i)][2] == "1" ? 1 : 0;
  }
  const Run e = cli_test::iputrain("eval " + kPredictModel + " --weights " + trained_weights());
  REQUIRE(e.status == 0);
  const size_t at = e.out.find("accuracy ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(e.out.substr(at + 9)) == doctest::Approx(right / 61.0).epsilon(1e-4));
  CHECK(e.out.find("(61 samples, the last 5 as a batch of their own)") != std::string::npos);

  const std::string wide = predict_temp("wide.csv");
  REQUIRE(cli_test::iputrain("predict " + kPredictModel + " --weights " + trained_weights() + " -o " + wide +
                             " --output probs")
              .status == 0);
  const auto w = read_csv(wide);
  REQUIRE(w.size() == 62);
  CHECK(w[0].size() == 11);
  CHECK(w[0][1] == "probs[0]");
  CHECK(w[0][10] == "probs[9]");
}

TEST_CASE("predict refuses what it cannot write, before running anything") {
  const std::string w = trained_weights();
  Run r = cli_test::iputrain("predict " + kPredictModel + " --weights " + w + " -o " + predict_temp("x.npy") +
                             " --output prob");
  CHECK(r.status == 2);
  CHECK(r.out.find("no output or named value `prob`") != std::string::npos);
  CHECK(r.out.find("did you mean `probs`?") != std::string::npos);
  r = cli_test::iputrain("predict " + kPredictModel + " --weights " + w + " -o " + predict_temp("x.npy") +
                         " --output loss");
  CHECK(r.status == 2);
  CHECK(r.out.find("one value per batch") != std::string::npos);
  r = cli_test::iputrain("predict " + kPredictModel + " --weights " + w + " -o " + predict_temp("x.npy"));
  CHECK(r.status == 2);
  CHECK(r.out.find("do not fit one .npy file") != std::string::npos);
  CHECK(!std::filesystem::exists(predict_temp("x.npy")));
  r = cli_test::iputrain("predict " + kPredictModel + " --weights " + w + " -o " + predict_temp("x.txt"));
  CHECK(r.status == 2);
  CHECK(r.out.find("cannot tell the format") != std::string::npos);
  r = cli_test::iputrain("predict cases/tiny.ipu cases/tiny.toml --weights " + w + " -o " + predict_temp("y.npy"));
  CHECK(r.status == 2);
  CHECK(r.out.find("no per-sample output") != std::string::npos);
}

TEST_CASE("a model without parameters predicts and evaluates without --weights, on its plan") {
  const Run p = cli_test::iputrain("predict cases/sums.ipu cases/sums.toml");
  CHECK(p.status == 0);
  // No -o: a table on stdout, one line per sample.
  CHECK(printed(p, "sample 0: result = ["));
  CHECK(printed(p, "sample 2: result = ["));
  const Run e = cli_test::iputrain("eval cases/sums.ipu cases/sums.toml");
  CHECK(e.status == 0);
  CHECK(printed(e, "ran on 2 IPUs (1 replica x 2): physical 0, 1"));
  // A model with parameters still needs them, and says how to get them.
  const Run w = cli_test::iputrain("predict " + kPredictModel);
  CHECK(w.status == 2);
  CHECK(printed(w, "needs --weights"));
  CHECK(printed(w, "--save"));
}

TEST_CASE("plan --inference shows the forward-only plan eval and predict run") {
  const Run r = cli_test::iputrain("plan cases/four_stage.ipu cases/four_stage_grouped.toml --inference");
  CHECK(r.status == 0);
  CHECK(printed(r, "(inference)"));
  CHECK(printed(r, "micro-batches per replica per cycle"));
  CHECK_FALSE(printed(r, "B0"));  // no backward pass in the timeline
  CHECK(printed(r, "samples/s"));
  const Run j = cli_test::iputrain("plan cases/four_stage.ipu cases/four_stage_grouped.toml --inference --format json");
  CHECK(printed(j, "\"training\": false"));
}

namespace {

// A version-1 .npy of a little-endian f4 or i4 array of shape [rows, cols] (or [rows, ...inner]).
void write_npy(const std::string& path, const std::string& descr, int rows, int cols, const void* data,
               const std::string& inner = {}) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                       (inner.empty() ? std::to_string(cols) : inner) + "), }";
  header += std::string(63 - (10 + header.size()) % 64, ' ') + "\n";
  std::ofstream f(path, std::ios::binary);
  f << "\x93NUMPY" << '\x01' << '\x00';
  f.put(static_cast<char>(header.size() & 0xFF));
  f.put(static_cast<char>(header.size() >> 8));
  f << header;
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(rows * cols * 4));
}

template <typename T>
std::vector<T> values_of(const Npy& npy) {
  std::vector<T> v(npy.data.size() / sizeof(T));
  std::memcpy(v.data(), npy.data.data(), npy.data.size());
  return v;
}

}  // namespace

TEST_CASE("predict returns inputs, i32 results and saturated casts exactly as computed") {
  // Issue 36: `output y = x` came back as zeros, and every i32 output went through f32 on its way
  // out (123456789 -> 123456792, 2147483647 -> -2147483648, saturated casts wrapped).
  const std::string dir = predict_temp("edges/");
  std::filesystem::create_directories(dir + "data");
  const float x[] = {1, 2, 3, 4, -1, -2.5f, 2.25f, std::nanf("")};
  const int32_t k[] = {123456789, 16777217, 2147483647, -5, 2147483647, 1, 0, 0};
  write_npy(dir + "data/x.npy", "<f4", 2, 4, x);
  write_npy(dir + "data/k.npy", "<i4", 2, 4, k);
  std::ofstream(dir + "m.ipu") << "model edges(batch: int = 1) {\n"
                                  "  input x: f32[batch, 4]\n"
                                  "  input k: i32[batch, 4]\n"
                                  "  output same = x\n"
                                  "  output also = identity(x)\n"
                                  "  output k_plus = k + 0\n"
                                  "  output k_wrap = k + 1\n"
                                  "  output k_sum = reshape(sum(k, axis = -1), [batch, 1])\n"
                                  "  output saturated = cast(x * 1e9, dtype = \"i32\")\n"
                                  "  output halves = split(x, 2)[1]\n"
                                  "}\n";
  std::ofstream(dir + "c.toml") << "[data]\ntest = \"npy:data\"\nbatch_size = 1\n";
  const Run r = cli_test::iputrain("predict " + dir + "m.ipu " + dir + "c.toml -o " + dir + "out/");
  REQUIRE(r.status == 0);
  const std::vector<float> same = values_of<float>(read_npy(dir + "out/same.npy"));
  const std::vector<float> also = values_of<float>(read_npy(dir + "out/also.npy"));
  REQUIRE(same.size() == 8);
  CHECK(same[0] == 1.0f);
  CHECK(same[5] == -2.5f);
  CHECK(std::isnan(same[7]));
  CHECK(also[6] == 2.25f);
  CHECK(values_of<int32_t>(read_npy(dir + "out/k_plus.npy")) ==
        std::vector<int32_t>{123456789, 16777217, 2147483647, -5, 2147483647, 1, 0, 0});
  CHECK(values_of<int32_t>(read_npy(dir + "out/k_wrap.npy")) ==
        std::vector<int32_t>{123456790, 16777218, INT32_MIN, -4, INT32_MIN, 2, 1, 1});
  CHECK(values_of<int32_t>(read_npy(dir + "out/k_sum.npy")) == std::vector<int32_t>{-2007249648, INT32_MIN});
  CHECK(values_of<int32_t>(read_npy(dir + "out/saturated.npy")) ==
        std::vector<int32_t>{1000000000, 2000000000, INT32_MAX, INT32_MAX, -1000000000, INT32_MIN, 2147483647, 0});
  const std::vector<float> halves = values_of<float>(read_npy(dir + "out/halves.npy"));
  REQUIRE(halves.size() == 4);
  CHECK(halves[0] == 3.0f);
  CHECK(halves[2] == 2.25f);
  CHECK(std::isnan(halves[3]));
}

namespace {

// The 61 test samples of cases/predict.toml's synthetic source, without their labels, as a CSV
// (columns x.0 .. x.15) and as an .npy folder: what a user predicts on.
std::string unlabelled(const std::string& dir) {
  std::filesystem::create_directories(dir + "npy");
  const std::string all = dir + "all/";
  REQUIRE(cli_test::iputrain("predict " + kPredictModel + " --weights " + trained_weights() +
                             " --output x --output probs -o " + all)
              .status == 0);
  const std::vector<float> x = values_of<float>(read_npy(all + "x.npy"));
  REQUIRE(x.size() == 61 * 16);
  std::ofstream csv(dir + "x.csv");
  for (int c = 0; c < 16; ++c) {
    csv << (c > 0 ? "," : "") << "x." << c;
  }
  csv << "\n";
  for (int i = 0; i < 61; ++i) {
    for (int c = 0; c < 16; ++c) {
      char cell[32];
      std::snprintf(cell, sizeof cell, "%.9g", static_cast<double>(x[static_cast<size_t>(i * 16 + c)]));
      csv << (c > 0 ? "," : "") << cell;
    }
    csv << "\n";
  }
  write_npy(dir + "npy/x.npy", "<f4", 61, 16, x.data(), "4, 4");
  return all;
}

}  // namespace

TEST_CASE("the training model predicts from data without labels, and its per-sample outputs are no metrics") {
  const std::string dir = predict_temp("unlabelled/");
  const std::string all = unlabelled(dir);
  const std::vector<float> probs = values_of<float>(read_npy(all + "probs.npy"));
  for (const std::string source : {"csv:" + dir + "x.csv", "npy:" + dir + "npy"}) {
    INFO(source);
    const std::string out = dir + "out" + std::to_string(source.size()) + "/";
    const Run r = cli_test::iputrain("predict " + kPredictModel + " --set data.test=" + source + " --weights " +
                                     trained_weights() + " --output probs --output logits -o " + out);
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(values_of<float>(read_npy(out + "probs.npy")) == probs);
    CHECK(read_npy(out + "logits.npy").header.find("'shape': (61, 10)") != std::string::npos);
    // `correct` needs the labels: asking for it names the missing column.
    const Run c = cli_test::iputrain("predict " + kPredictModel + " --set data.test=" + source + " --weights " +
                                     trained_weights() + " --output correct -o " + out);
    CHECK(c.status != 0);
    CHECK(printed(c, "label"));
  }
  // Training and evaluation neither log nor average them, nor write them to the outfeed file.
  const Run t =
      cli_test::iputrain("train " + kPredictModel + " --no-eval --set training.steps=10 --outfeed " + dir + "feed.csv");
  REQUIRE(t.status == 0);
  CHECK_FALSE(printed(t, "probs"));
  CHECK(read_file(dir + "feed.csv").find("probs") == std::string::npos);
  CHECK(read_file(dir + "feed.csv").find("accuracy") != std::string::npos);
  const Run e = cli_test::iputrain("eval " + kPredictModel + " --weights " + trained_weights());
  REQUIRE(e.status == 0);
  CHECK(printed(e, "accuracy"));
  CHECK_FALSE(printed(e, "probs"));
  CHECK_FALSE(printed(e, "correct"));
}

TEST_CASE("a per-sample output must have a row per sample") {
  const std::string dir = predict_temp("bad_per_sample/");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "m.ipu") << "model m(batch: int = 4) {\n"
                                  "  input x: f32[batch, 3]\n"
                                  "  output per_sample total = sum(x, axis = 0)\n"
                                  "}\n";
  const Run r = cli_test::iputrain("check " + dir + "m.ipu cases/tiny.toml");
  CHECK(r.status != 0);
  CHECK(printed(r, "m.ipu:3:"));
  CHECK(printed(r, "per-sample output 'total' is f32[3]: its first dimension must be the micro-batch, 4"));
}

TEST_CASE("predict of a u8 input: its normalisation as f32, a slice of it as |u1, a cast to f16 as f32") {
  const std::string dir = predict_temp("u8/");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "m.ipu") << "model m(batch: int = 2) {\n  input image: u8[batch, 3]\n"
                                  "  output y = (cast(image, \"f32\") - 127.5) / 127.5\n"
                                  "  output first = image[:, 0:2]\n  output h = cast(image, \"f16\")\n}\n";
  // A csv cell for a u8 input is a whole number from 0 to 255; three samples, batches of two.
  std::ofstream(dir + "d.csv") << "image.0,image.1,image.2\n0,128,255\n1,2,3\n9,8,7\n";
  std::ofstream(dir + "c.toml") << "[data]\ntest = \"csv:d.csv\"\nbatch_size = 2\n[training]\nsteps = 1\n";
  const Run r = cli_test::iputrain("predict " + dir + "m.ipu " + dir + "c.toml -o " + dir + "out/");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(printed(r, "first: u8[3, 2] over the test split"));
  const Npy first = read_npy(dir + "out/first.npy");
  CHECK(first.header.find("'descr': '|u1'") != std::string::npos);
  CHECK(first.data == std::string("\x00\x80\x01\x02\x09\x08", 6));
  const std::vector<float> y = probs_of(read_npy(dir + "out/y.npy"));
  REQUIRE(y.size() == 9);
  CHECK(y[0] == -1.0f);
  CHECK(y[2] == 1.0f);
  CHECK(y[5] == (3.0f - 127.5f) / 127.5f);  // the f32 ops' bits, in the padded last batch too
  CHECK(y[8] == (7.0f - 127.5f) / 127.5f);
  const Npy h = read_npy(dir + "out/h.npy");
  CHECK(h.header.find("'descr': '<f4'") != std::string::npos);  // f16 values, exactly, as f32
  CHECK(probs_of(h) == std::vector<float>{0, 128, 255, 1, 2, 3, 9, 8, 7});
  std::ofstream(dir + "bad.csv") << "image.0,image.1,image.2\n0,128,256\n";
  std::ofstream(dir + "bad.toml") << "[data]\ntest = \"csv:bad.csv\"\nbatch_size = 1\n[training]\nsteps = 1\n";
  const Run bad = cli_test::iputrain("predict " + dir + "m.ipu " + dir + "bad.toml -o " + dir + "bad/");
  CHECK(bad.status != 0);
  CHECK(printed(bad, "bad.csv`:2:"));
  CHECK(printed(bad, "is not a whole number from 0 to 255"));
}
