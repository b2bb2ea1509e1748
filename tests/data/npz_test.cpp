// "npz:FILE": numpy.savez (stored members) and savez_compressed (deflated) archives.
#include <doctest/doctest.h>

#include "core/data/dataset.hpp"
#include "error_text.hpp"
#include "numpy_writer.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

using test::error_of;

const std::vector<data::Field> kWanted = {{"x", DType::F32, {2, 2}}, {"label", DType::I32, {}}};

void check_contents(const data::Dataset& ds) {
  REQUIRE(ds.size() == 3);
  float x[4];
  int32_t label = 0;
  ds.read(2, static_cast<size_t>(ds.field_index("x")), x);
  ds.read(1, static_cast<size_t>(ds.field_index("label")), &label);
  CHECK(x[0] == 8.0f);
  CHECK(x[3] == 11.0f);
  CHECK(label == 7);
}

TEST_CASE("npz: stored and deflated archives give the same samples") {
  test::TempDir dir("npz_roundtrip");
  test::run_numpy(dir.path(), R"(
x = np.arange(12, dtype=np.float64).reshape(3, 2, 2)
label = np.array([5, 7, 9], dtype=np.int16)
np.savez("plain.npz", x=x, label=label, other=np.zeros(4))
np.savez_compressed("small.npz", x=x, label=label))");
  for (const char* file : {"plain.npz", "small.npz"}) {
    CAPTURE(file);
    check_contents(*data::open_dataset(std::string("npz:") + file, dir.path().string(), kWanted, 0));
  }
}

TEST_CASE("npz: a missing member and a mismatched shape name the archive and the input") {
  test::TempDir dir("npz_errors");
  test::run_numpy(dir.path(), "np.savez('a.npz', x=np.zeros((3, 4)), y=np.zeros(3))");
  auto missing = error_of([&] {
    (void)data::open_dataset("npz:" + (dir / "a.npz"), "",
                             {{"x", DType::F32, {4}}, {"label", DType::I32, {}}}, 0);
  });
  CHECK(missing.message.find("has no array `label` for the model's input `label: i32[]`") !=
        std::string::npos);
  CHECK(missing.hint.find("holds x, y") != std::string::npos);
  auto shape = error_of([&] {
    (void)data::open_dataset("npz:" + (dir / "a.npz"), "", {{"x", DType::F32, {2, 2}}}, 0);
  });
  CHECK(shape.message.find(dir / "a.npz:x.npy") != std::string::npos);
  CHECK(shape.message.find("is f32[2, 2] per sample") != std::string::npos);
}

TEST_CASE("npz: truncated, corrupt and non-zip files are errors, not crashes") {
  test::TempDir dir("npz_corrupt");
  test::run_numpy(dir.path(), R"(
x = np.arange(3 * 64, dtype=np.float32).reshape(3, 8, 8)
np.savez("plain.npz", x=x, label=np.arange(3))
np.savez_compressed("small.npz", x=x, label=np.arange(3))
data = open("plain.npz", "rb").read()
open("cut.npz", "wb").write(data[:len(data) // 2])
open("notzip.npz", "wb").write(b"hello world, this is not a zip archive at all")
small = bytearray(open("small.npz", "rb").read())
for i in range(60, 90):
    small[i] ^= 0x5a
open("flipped.npz", "wb").write(bytes(small)))");
  const std::vector<data::Field> wanted = {{"x", DType::F32, {8, 8}}, {"label", DType::I32, {}}};
  for (const char* file : {"cut.npz", "notzip.npz", "flipped.npz"}) {
    CAPTURE(file);
    auto e = error_of(
        [&] { (void)data::open_dataset(std::string("npz:") + file, dir.path().string(), wanted, 0); });
    CHECK(e.kind == ErrorKind::Data);
    CHECK(e.message.find(file) != std::string::npos);
  }
  auto gone = error_of([&] { (void)data::open_dataset("npz:" + (dir / "none.npz"), "", wanted, 0); });
  CHECK(gone.kind == ErrorKind::Io);
}

}  // namespace
}  // namespace iputrain
