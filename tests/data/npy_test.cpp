// "npy:DIR": arrays NumPy writes, mapped to inputs by name, converted to the inputs' dtypes.
#include <doctest/doctest.h>

#include <array>
#include <cstring>
#include <fstream>

#include "core/data/dataset.hpp"
#include "error_text.hpp"
#include "numpy_writer.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

using test::error_of;

template <typename T, size_t N>
std::array<T, N> sample(const data::Dataset& ds, int64_t i, const std::string& field) {
  std::array<T, N> out{};
  REQUIRE(ds.field_index(field) >= 0);
  const auto k = static_cast<size_t>(ds.field_index(field));
  REQUIRE(ds.fields()[k].bytes() == sizeof(T) * N);
  ds.read(i, k, out.data());
  return out;
}

TEST_CASE("npy: float64, int64 and uint8 arrays arrive as the inputs' f32 and i32") {
  test::TempDir dir("npy_roundtrip");
  test::run_numpy(dir.path(), R"(
np.save("x.npy", np.arange(15, dtype=np.float64).reshape(5, 3) / 4)
np.save("label.npy", np.array([3, 1, 4, 1, 5]))
np.save("img.npy", (np.arange(20) * 13 % 256).astype(np.uint8).reshape(5, 2, 2))
np.save("unused.npy", np.zeros(7)))");
  const std::vector<data::Field> wanted = {
      {"x", DType::F32, {3}}, {"label", DType::I32, {}}, {"img", DType::F32, {2, 2}}};
  auto ds = data::open_dataset("npy:" + dir.path().string(), "", wanted, 0);
  REQUIRE(ds->size() == 5);
  CHECK(ds->fields().size() == 3);
  CHECK(sample<float, 3>(*ds, 2, "x") == std::array<float, 3>{1.5f, 1.75f, 2.0f});
  CHECK(sample<int32_t, 1>(*ds, 4, "label")[0] == 5);
  // Pixels arrive as stored: no hidden scaling.
  CHECK(sample<float, 4>(*ds, 1, "img") == std::array<float, 4>{52, 65, 78, 91});
}

TEST_CASE("npy: every supported stored dtype converts to f32 and the integer ones to i32") {
  test::TempDir dir("npy_dtypes");
  const std::vector<std::string> types = {"<f4", "<f8", "<f2", "|i1", "<i2", "<i4",
                                          "<i8", "|u1", "<u2", "<u4", "|b1"};
  std::string code;
  for (const std::string& t : types) {
    code += "np.save('" + t.substr(1) + ".npy', np.array([[0, 1], [2, 3]]).astype(np.dtype('" + t + "')))\n";
  }
  test::run_numpy(dir.path(), code);
  for (const std::string& t : types) {
    CAPTURE(t);
    const std::string name = t.substr(1);
    auto ds = data::open_dataset("npy:" + dir.path().string(), "", {{name, DType::F32, {2}}}, 0);
    const float want = name == "b1" ? 1.0f : 3.0f;
    CHECK(sample<float, 2>(*ds, 1, name) == std::array<float, 2>{name == "b1" ? 1.0f : 2.0f, want});
    if (name[0] != 'f') {
      auto ints = data::open_dataset("npy:" + dir.path().string(), "", {{name, DType::I32, {2}}}, 0);
      CHECK(sample<int32_t, 2>(*ints, 0, name) == std::array<int32_t, 2>{0, 1});
    }
  }
  // u8 and bool become bool; f16 round trips to f16 exactly.
  auto b = data::open_dataset("npy:" + dir.path().string(), "", {{"u1", DType::Bool, {2}}}, 0);
  CHECK(sample<uint8_t, 2>(*b, 0, "u1") == std::array<uint8_t, 2>{0, 1});
  auto h = data::open_dataset("npy:" + dir.path().string(), "", {{"f2", DType::F16, {2}}}, 0);
  CHECK(sample<uint16_t, 2>(*h, 1, "f2") == std::array<uint16_t, 2>{0x4000, 0x4200});
  auto h32 = data::open_dataset("npy:" + dir.path().string(), "", {{"f4", DType::F16, {2}}}, 0);
  CHECK(sample<uint16_t, 2>(*h32, 1, "f4") == std::array<uint16_t, 2>{0x4000, 0x4200});
}

TEST_CASE("npy: a uint8 array reaches a u8 input as stored, and f32 values for a u8 input are refused") {
  test::TempDir dir("npy_u8");
  test::run_numpy(dir.path(), R"(
np.save("img.npy", (np.arange(20) * 13 % 256).astype(np.uint8).reshape(5, 2, 2))
np.save("x.npy", np.zeros((5, 4), dtype=np.float32))
np.save("n.npy", np.zeros((5, 4), dtype=np.int32)))");
  const std::string spec = "npy:" + dir.path().string();
  auto ds = data::open_dataset(spec, "", {{"img", DType::U8, {2, 2}}}, 0);
  CHECK(ds->fields()[0].dtype == DType::U8);
  CHECK(sample<uint8_t, 4>(*ds, 3, "img") == std::array<uint8_t, 4>{156, 169, 182, 195});
  // The same file into an f32 input: the values 0..255, as before.
  auto as_f32 = data::open_dataset(spec, "", {{"img", DType::F32, {2, 2}}}, 0);
  CHECK(sample<float, 4>(*as_f32, 3, "img") == std::array<float, 4>{156, 169, 182, 195});
  auto floats = error_of([&] { (void)data::open_dataset(spec, "", {{"x", DType::U8, {4}}}, 0); });
  CHECK(floats.kind == ErrorKind::Data);
  CHECK(floats.message.find(dir / "x.npy") != std::string::npos);
  CHECK(floats.message.find("stores f32 values but the model's input `x` is u8") != std::string::npos);
  CHECK(floats.hint.find("uint8") != std::string::npos);
  auto ints = error_of([&] { (void)data::open_dataset(spec, "", {{"n", DType::U8, {4}}}, 0); });
  CHECK(ints.message.find("stores i32 values but the model's input `n` is u8") != std::string::npos);
}

TEST_CASE("npy: shape, dtype, name and sample-count mismatches are refused at open, naming the file") {
  test::TempDir dir("npy_errors");
  test::run_numpy(dir.path(), R"(
np.save("x.npy", np.zeros((6, 4), dtype=np.float32))
np.save("y.npy", np.zeros(5, dtype=np.float32))
np.save("label.npy", np.zeros(6, dtype=np.int64)))");
  const std::string spec = "npy:" + dir.path().string();
  auto shape = error_of([&] { (void)data::open_dataset(spec, "", {{"x", DType::F32, {2, 3}}}, 0); });
  CHECK(shape.kind == ErrorKind::Data);
  CHECK(shape.message.find(dir / "x.npy") != std::string::npos);
  CHECK(shape.message.find("f32[6, 4]") != std::string::npos);
  CHECK(shape.message.find("input `x` is f32[2, 3] per sample") != std::string::npos);
  CHECK(shape.hint.find("[N, 2, 3]") != std::string::npos);

  auto reshape = error_of([&] { (void)data::open_dataset(spec, "", {{"x", DType::F32, {2, 2}}}, 0); });
  CHECK(reshape.hint.find("reshape") != std::string::npos);

  auto to_int = error_of([&] { (void)data::open_dataset(spec, "", {{"x", DType::I32, {4}}}, 0); });
  CHECK(to_int.message.find("stores f32 values but the model's input `x` is i32") != std::string::npos);
  CHECK(to_int.hint.find("cast") != std::string::npos);

  auto to_bool = error_of([&] { (void)data::open_dataset(spec, "", {{"label", DType::Bool, {}}}, 0); });
  CHECK(to_bool.message.find("only bool and u8 values convert to bool") != std::string::npos);

  auto missing = error_of([&] { (void)data::open_dataset(spec, "", {{"pixels", DType::F32, {4}}}, 0); });
  CHECK(missing.message.find("no `pixels.npy` for the model's input `pixels: f32[4]`") != std::string::npos);
  CHECK(missing.hint.find("label.npy, x.npy, y.npy") != std::string::npos);

  auto count = error_of([&] {
    (void)data::open_dataset(spec, "", {{"x", DType::F32, {4}}, {"y", DType::F32, {}}}, 0);
  });
  CHECK(count.message.find("has 6 samples but") != std::string::npos);
  CHECK(count.message.find("y.npy` has 5") != std::string::npos);

  auto no_dir = error_of([&] { (void)data::open_dataset(spec + "/nope", "", {{"x", DType::F32, {4}}}, 0); });
  CHECK(no_dir.kind == ErrorKind::Io);
}

TEST_CASE("npy: Fortran order, big-endian and unsupported dtypes are refused with a way out") {
  test::TempDir dir("npy_refused");
  test::run_numpy(dir.path(), R"(
np.save("f.npy", np.asfortranarray(np.zeros((3, 2), dtype=np.float32)))
np.save("b.npy", np.zeros((3, 2), dtype=">f4"))
np.save("c.npy", np.zeros((3, 2), dtype=np.complex64)))");
  const std::string spec = "npy:" + dir.path().string();
  auto fortran = error_of([&] { (void)data::open_dataset(spec, "", {{"f", DType::F32, {2}}}, 0); });
  CHECK(fortran.message.find("Fortran (column-major) order") != std::string::npos);
  CHECK(fortran.hint.find("ascontiguousarray") != std::string::npos);
  auto big = error_of([&] { (void)data::open_dataset(spec, "", {{"b", DType::F32, {2}}}, 0); });
  CHECK(big.message.find("'>f4'") != std::string::npos);
  CHECK(big.message.find("big-endian") != std::string::npos);
  auto complex = error_of([&] { (void)data::open_dataset(spec, "", {{"c", DType::F32, {2}}}, 0); });
  CHECK(complex.message.find("'<c8'") != std::string::npos);
}

TEST_CASE("npy: truncated and corrupt files are errors, not crashes") {
  test::TempDir dir("npy_corrupt");
  test::run_numpy(dir.path(), R"(
np.save("x.npy", np.arange(100, dtype=np.float32).reshape(25, 4))
data = open("x.npy", "rb").read()
open("cut.npy", "wb").write(data[:-10])
open("head.npy", "wb").write(data[:30])
open("magic.npy", "wb").write(b"NOTNPY" + data[6:])
open("empty.npy", "wb").write(b""))");
  const std::string spec = "npy:" + dir.path().string();
  auto cut = error_of([&] { (void)data::open_dataset(spec, "", {{"cut", DType::F32, {4}}}, 0); });
  CHECK(
      cut.message.find("is truncated: its header promises f32[25, 4] (400 bytes of data) but it holds 390") !=
      std::string::npos);
  for (const char* name : {"head", "magic", "empty"}) {
    CAPTURE(name);
    auto e = error_of([&] { (void)data::open_dataset(spec, "", {{name, DType::F32, {4}}}, 0); });
    CHECK(e.kind == ErrorKind::Data);
    CHECK(e.message.find(std::string(name) + ".npy") != std::string::npos);
  }
}

TEST_CASE("npy: an integer beyond i32 is an error when read, naming the file and the sample") {
  test::TempDir dir("npy_range");
  test::run_numpy(dir.path(), "np.save('label.npy', np.array([1, 2**40, 3]))");
  auto ds = data::open_dataset("npy:" + dir.path().string(), "", {{"label", DType::I32, {}}}, 0);
  int32_t v = 0;
  ds->read(0, 0, &v);
  CHECK(v == 1);
  auto e = error_of([&] { ds->read(1, 0, &v); });
  CHECK(e.message.find("label.npy`, sample 1: value 1099511627776") != std::string::npos);
}

TEST_CASE("npy: without a model, every array is a field of its natural dtype") {
  test::TempDir dir("npy_all");
  test::run_numpy(dir.path(),
                  "np.save('a.npy', np.zeros((2, 3)))\nnp.save('b.npy', np.zeros(2, dtype=np.uint8))");
  auto ds = data::open_dataset("npy:" + dir.path().string(), "", {}, 0);
  REQUIRE(ds->fields().size() == 2);
  CHECK(ds->fields()[0].str() == "a: f32[3]");
  CHECK(ds->fields()[1].str() == "b: i32[]");
}

}  // namespace
}  // namespace iputrain
