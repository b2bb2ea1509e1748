// "jsonl:FILE": one JSON object per line, a field per model input (nested arrays for tensors),
// parsed at open into the inputs' dtypes; bad lines located at FILE:LINE[:COLUMN] with a hint.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>

#include "core/data/dataset.hpp"
#include "error_text.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

using test::error_of;

const std::vector<data::Field> kWanted = {{"x", DType::F32, {2, 2}}, {"label", DType::I32, {}}};

std::string write(const test::TempDir& dir, const std::string& text) {
  const std::string path = dir / "d.jsonl";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

test::ErrorText refusal(const std::string& path, const std::vector<data::Field>& wanted = kWanted) {
  return error_of([&] { (void)data::open_dataset("jsonl:" + path, "", wanted, 0); });
}

TEST_CASE("jsonl: nested arrays for tensors, numbers for scalars, other fields ignored") {
  test::TempDir dir("jsonl_roundtrip");
  const std::string path = write(dir,
                                 "{\"x\": [[1, 2.5], [-3e2, 4]], \"label\": 7, \"id\": \"a\"}\r\n"
                                 "\n"
                                 "  {\"label\": 2, \"x\": [[0.125, 6], [7.0, 8]]}  \n");
  auto ds = data::open_dataset("jsonl:d.jsonl", dir.path().string(), kWanted, 0);
  REQUIRE(ds->size() == 2);
  float x[4];
  int32_t label = 0;
  ds->read(0, 0, x);
  CHECK(x[0] == 1.0f);
  CHECK(x[1] == 2.5f);
  CHECK(x[2] == -300.0f);
  CHECK(x[3] == 4.0f);
  ds->read(0, 1, &label);
  CHECK(label == 7);
  ds->read(1, 0, x);
  CHECK(x[0] == 0.125f);
  CHECK(x[2] == 7.0f);
  ds->read(1, 1, &label);
  CHECK(label == 2);
  // The value as stored, rounded once to f32 like every source (0.1 is not 0.1f's double).
  auto one = data::open_dataset("jsonl:" + write(dir, "{\"v\": 0.1}\n"), "", {{"v", DType::F32, {}}}, 0);
  float v = 0;
  one->read(0, 0, &v);
  CHECK(v == 0.1f);
}

TEST_CASE("jsonl: bool inputs take true, false, 0 and 1, u8 inputs whole numbers 0..255") {
  test::TempDir dir("jsonl_types");
  const std::string path = write(dir, "{\"ok\": true, \"px\": [0, 255]}\n{\"ok\": 0, \"px\": [7, 1]}\n");
  auto ds = data::open_dataset("jsonl:" + path, "", {{"ok", DType::Bool, {}}, {"px", DType::U8, {2}}}, 0);
  uint8_t b = 9;
  uint8_t px[2];
  ds->read(0, 0, &b);
  CHECK(b == 1);
  ds->read(1, 0, &b);
  CHECK(b == 0);
  ds->read(0, 1, px);
  CHECK(px[0] == 0);
  CHECK(px[1] == 255);
}

TEST_CASE("jsonl: without a model, every field of the first object by name, f32 of its own shape") {
  test::TempDir dir("jsonl_fields");
  auto ds = data::open_dataset("jsonl:" + write(dir, "{\"b\": 4, \"a\": [[1, 2, 3]], \"f\": false}\n"), "", {}, 0);
  REQUIRE(ds->fields().size() == 3);
  CHECK(ds->fields()[0].str() == "a: f32[1, 3]");
  CHECK(ds->fields()[1].str() == "b: f32[]");
  CHECK(ds->fields()[2].str() == "f: bool[]");
}

TEST_CASE("jsonl: invalid JSON is located at its line and column") {
  test::TempDir dir("jsonl_syntax");
  const std::string path =
      write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": 0}\n{\"x\": [[1, 2], [3, 4]], \"label\": 1x}\n");
  auto e = refusal(path);
  CHECK(e.kind == ErrorKind::Data);
  CHECK(e.message.rfind("`" + path + "`:2:35: not valid JSON: syntax error while parsing object", 0) == 0);
  CHECK(e.hint.find("one object") != std::string::npos);
  auto nan = refusal(write(dir, "{\"x\": [[1, 2], [3, NaN]], \"label\": 0}\n"));
  CHECK(nan.message.find("`:1:20: not valid JSON") != std::string::npos);
  auto twice = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": 0, \"label\": 1}\n"));
  CHECK(twice.message == "`" + (dir / "d.jsonl") + "`:1: the field `label` appears twice in the object");
  auto array = refusal(write(dir, "[1, 2, 3]\n"));
  CHECK(array.message == "`" + (dir / "d.jsonl") + "`:1: the line holds an array, not an object");
}

TEST_CASE("jsonl: a missing field, a wrong or ragged shape and a non-number are named") {
  test::TempDir dir("jsonl_fields_bad");
  auto missing = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": 0}\n{\"x\": [[1, 2], [3, 4]]}\n"));
  CHECK(missing.message == "`" + (dir / "d.jsonl") +
                               "`:2: the object has no field `label` for the model's input "
                               "`label: i32[]`");
  CHECK(missing.hint == "its fields are x; every line needs a field per model input");
  auto flat = refusal(write(dir, "{\"x\": [1, 2, 3, 4], \"label\": 0}\n"));
  CHECK(flat.message ==
        "`" + (dir / "d.jsonl") + "`:1: field `x` is [4] but the model's input `x: f32[2, 2]` takes [2, 2] per sample");
  CHECK(flat.hint == "write `x` as a list of 2 lists of 2 numbers (nested arrays in row-major order)");
  auto ragged = refusal(write(dir, "{\"x\": [[1, 2], [3]], \"label\": 0}\n"));
  CHECK(ragged.message.find("field `x` is a ragged array (rows of different lengths) but the model's input") !=
        std::string::npos);
  auto one_level = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": [0]}\n"));
  CHECK(one_level.message.find("field `label` is nested 1 level deep but") != std::string::npos);
  auto deep = refusal(write(dir, "{\"x\": [[[1], [2]], [[3], [4]]], \"label\": 0}\n"));
  CHECK(deep.message.find("field `x` is nested 3 levels deep but the model's input `x: f32[2, 2]` takes [2, 2]") !=
        std::string::npos);
  // A deeper branch after the first row is ragged, and neither overflows the stack.
  const std::string nested = std::string(200000, '[') + std::string(200000, ']');
  auto very_deep = refusal(write(dir, "{\"x\": [[1, 2], " + nested + "], \"label\": 0}\n"));
  CHECK(very_deep.message.find("field `x` is a ragged array") != std::string::npos);
  auto scalar = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": [0]}\n"));
  CHECK(scalar.hint == "write `label` as a bare number (nested arrays in row-major order)");
  auto text = refusal(write(dir, "{\"x\": [[1, 2], [\"3\", 4]], \"label\": 0}\n"));
  CHECK(text.message == "`" + (dir / "d.jsonl") + "`:1: `x[1][0]` is string \"3\", not a number");
  CHECK(text.hint == "the model's input `x` is f32");
  auto null = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": null}\n"));
  CHECK(null.message.find("`label` is null, not a whole number in i32's range") != std::string::npos);
  auto object = refusal(write(dir, "{\"x\": [[1, 2], [{\"a\": 1}, 4]], \"label\": 0}\n"));
  CHECK(object.message.find("`x[1][0]` is an object, not a number") != std::string::npos);
  auto long_text = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": \"" + std::string(100, 'a') + "\"}\n"));
  CHECK(long_text.message.find("`label` is string \"aaaa") != std::string::npos);
  CHECK(long_text.message.find("…, not a whole number") != std::string::npos);
  auto flag = refusal(write(dir, "{\"x\": [[1, true], [3, 4]], \"label\": 0}\n"));
  CHECK(flag.message.find("`x[0][1]` is boolean true, not a number") != std::string::npos);
}

TEST_CASE("jsonl: a value outside its input's dtype is refused, not rounded or wrapped") {
  test::TempDir dir("jsonl_range");
  auto frac = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": 1.5}\n"));
  CHECK(frac.message == "`" + (dir / "d.jsonl") + "`:1: `label` is 1.5, not a whole number in i32's range");
  CHECK(frac.hint.find("declare it f32 and cast it") != std::string::npos);
  auto big = refusal(write(dir, "{\"x\": [[1, 2], [3, 4]], \"label\": 3000000000}\n"));
  CHECK(big.message.find("`label` is 3000000000, not a whole number in i32's range") != std::string::npos);
  auto byte = refusal(write(dir, "{\"px\": 256}\n"), {{"px", DType::U8, {}}});
  CHECK(byte.message.find("`px` is 256, not a whole number from 0 to 255") != std::string::npos);
  auto two = refusal(write(dir, "{\"ok\": 2}\n"), {{"ok", DType::Bool, {}}});
  CHECK(two.message.find("`ok` is 2, not true, false, 0 or 1") != std::string::npos);
  auto f32 = refusal(write(dir, "{\"x\": [[1, 2], [3, 1e300]], \"label\": 0}\n"));
  CHECK(f32.message.find("`x[1][1]` is 1e+300, beyond f32's range") != std::string::npos);
  auto huge = refusal(write(dir, "{\"x\": [[1, 2], [3, 1e400]], \"label\": 0}\n"));
  CHECK(huge.message == "`" + (dir / "d.jsonl") + "`:1: number overflow parsing '1e400'");
  CHECK(huge.hint.find("must fit a double") != std::string::npos);
  auto f16 = refusal(write(dir, "{\"h\": 70000}\n"), {{"h", DType::F16, {}}});
  CHECK(f16.message.find("`h` is 70000, beyond f16's range") != std::string::npos);
}

TEST_CASE("jsonl: empty and missing files are refused") {
  test::TempDir dir("jsonl_empty");
  auto empty = refusal(write(dir, "\n  \n"));
  CHECK(empty.message == "`" + (dir / "d.jsonl") + "` is empty: a JSON Lines source needs one object per line");
  auto gone = refusal(dir / "none.jsonl");
  CHECK(gone.kind == ErrorKind::Io);
  auto unnamed = error_of([] { (void)data::open_dataset("jsonl:", "", kWanted, 0); });
  CHECK(unnamed.message == "data source \"jsonl:\" names no file");
}

}  // namespace
}  // namespace iputrain
