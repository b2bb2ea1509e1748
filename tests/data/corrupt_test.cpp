// Damaged files of every kind: truncated at many lengths and with bytes flipped, each either opens
// and reads or fails with an iputrain::Error, never a crash (run it under ASan: IPUTRAIN_SANITIZE).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "core/data/dataset.hpp"
#include "core/data/safetensors.hpp"
#include "image_writer.hpp"
#include "iputrain/error.hpp"
#include "numpy_writer.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Outcome {
  int opened = 0;
  int refused = 0;
};

// Opens `spec` and reads every sample; an Error is a refusal, anything else escapes and fails.
void try_open(const std::string& spec, const std::vector<data::Field>& wanted, Outcome& out) {
  try {
    auto ds = data::open_dataset(spec, "", wanted, 0);
    std::vector<uint8_t> buf;
    for (int64_t i = 0; i < ds->size(); ++i) {
      for (size_t f = 0; f < ds->fields().size(); ++f) {
        buf.resize(ds->fields()[f].bytes());
        ds->read(i, f, buf.data());
      }
    }
    ++out.opened;
  } catch (const Error&) {
    ++out.refused;
  }
}

// Writes `variants` damaged copies of `good` to `path` (half truncated, half with flipped bytes)
// and opens each with `spec`.
Outcome damage(const std::string& good, const std::string& path, const std::string& spec,
               const std::vector<data::Field>& wanted, int variants) {
  std::mt19937 rng(11);
  Outcome out;
  for (int v = 0; v < variants; ++v) {
    std::string bad = good;
    if (v % 2 == 0) {
      bad.resize(std::uniform_int_distribution<size_t>(0, good.size() - 1)(rng));
    } else {
      for (int k = 0; k < 1 + v % 4; ++k) {
        bad[std::uniform_int_distribution<size_t>(0, good.size() - 1)(rng)] ^=
            static_cast<char>(1 + std::uniform_int_distribution<int>(0, 254)(rng));
      }
    }
    std::filesystem::remove(path);
    std::ofstream(path, std::ios::binary) << bad;
    try_open(spec, wanted, out);
  }
  return out;
}

TEST_CASE("damaged npy, npz, csv, safetensors and image files are refused or read, never crash") {
  test::TempDir dir("corrupt");
  test::run_numpy(dir.path(), R"(
os.makedirs("npy", exist_ok=True)
np.save("x.npy", np.arange(40, dtype=np.float32).reshape(10, 4))
np.savez("plain.npz", x=np.arange(40, dtype=np.float64).reshape(10, 4), label=np.arange(10))
np.savez_compressed("small.npz", x=np.arange(40, dtype=np.float64).reshape(10, 4), label=np.arange(10)))");
  const std::vector<data::Field> x = {{"x", DType::F32, {4}}};
  const std::vector<data::Field> xl = {{"x", DType::F32, {4}}, {"label", DType::I32, {}}};
  const int kVariants = 150;

  Outcome npy = damage(slurp(dir / "x.npy"), dir / "npy/x.npy", "npy:" + (dir / "npy"), x, kVariants);
  for (const char* name : {"plain.npz", "small.npz"}) {
    Outcome npz = damage(slurp(dir / name), dir / "bad.npz", "npz:" + (dir / "bad.npz"), xl, kVariants);
    CHECK(npz.refused > 0);
  }
  CHECK(npy.refused > 0);

  std::string csv = "x.0,x.1,x.2,x.3,label\n";
  for (int i = 0; i < 10; ++i) {
    csv += std::to_string(i) + ",1.5,2,3e1," + std::to_string(i % 3) + "\n";
  }
  Outcome c = damage(csv, dir / "d.csv", "csv:" + (dir / "d.csv"), xl, kVariants);
  CHECK(c.refused > 0);

  std::vector<uint8_t> bytes(10 * 4 * 4);
  data::write_safetensors(dir / "good.safetensors", {{"x", DType::F32, {10, 4}, bytes}});
  Outcome st = damage(slurp(dir / "good.safetensors"), dir / "bad.safetensors",
                      "safetensors:" + (dir / "bad.safetensors"), x, kVariants);
  CHECK(st.refused > 0);

  std::filesystem::create_directories(dir.path() / "img/a");
  std::vector<uint8_t> px(16 * 16 * 3);
  for (size_t i = 0; i < px.size(); ++i) {
    px[i] = static_cast<uint8_t>(i * 13);
  }
  test::write_png(dir / "good.png", 16, 16, 3, px);
  test::write_jpeg(dir / "good.jpg", 16, 16, 3, px);
  const std::vector<data::Field> img = {{"image", DType::F32, {16, 16, 3}}, {"label", DType::I32, {}}};
  for (const char* name : {"good.png", "good.jpg"}) {
    const std::string ext = std::filesystem::path(name).extension().string();
    Outcome im = damage(slurp(dir / name), dir / ("img/a/x" + ext), "images:" + (dir / "img"), img, kVariants);
    CHECK(im.refused > 0);
  }
}

}  // namespace
}  // namespace iputrain
