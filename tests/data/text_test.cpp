// Text datasets: the fixed vocabulary, window layout, shifted targets and located errors.
#include <doctest/doctest.h>

#include <fstream>
#include <vector>

#include "core/data/dataset.hpp"
#include "iputrain/error.hpp"
#include "temp_dir.hpp"

using namespace iputrain;

namespace {

const std::vector<data::Field> kWanted = {{"tokens", DType::I32, {4}}, {"targets", DType::I32, {4}}};

std::vector<int32_t> field(const data::Dataset& ds, int64_t index, size_t f) {
  std::vector<int32_t> out(static_cast<size_t>(ds.fields()[f].shape[0]));
  ds.read(index, f, out.data());
  return out;
}

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

Error text_error(const std::string& spec, const std::vector<data::Field>& wanted = kWanted) {
  try {
    (void)data::open_dataset(spec, "", wanted, 1);
  } catch (const Error& e) {
    return e;
  }
  FAIL("accepted " << spec);
  return Error(ErrorKind::Internal, "unreachable");
}

}  // namespace

TEST_CASE("text: printable ASCII is 0..94, everything else 95") {
  CHECK(data::text_token_id(' ') == 0);
  CHECK(data::text_token_id('A') == 33);
  CHECK(data::text_token_id('~') == 94);
  CHECK(data::text_token_id('\n') == 95);
  CHECK(data::text_token_id('\t') == 95);
  CHECK(data::text_token_id(0xC3) == 95);
  CHECK(data::text_token_id(127) == 95);
}

TEST_CASE("text: non-overlapping windows with targets shifted by one") {
  test::TempDir dir("text");
  write(dir / "a.txt", "abcdefghij\n");  // 11 bytes -> (11 - 1) / 4 = 2 windows
  auto ds = data::open_dataset("text:a.txt", dir.path().string(), kWanted, 1);
  REQUIRE(ds->size() == 2);
  REQUIRE(ds->fields().size() == 2);
  CHECK(ds->fields()[0].str() == "tokens: i32[4]");
  CHECK(ds->fields()[1].str() == "targets: i32[4]");
  auto id = [](char c) { return data::text_token_id(static_cast<unsigned char>(c)); };
  CHECK(field(*ds, 0, 0) == std::vector<int32_t>{id('a'), id('b'), id('c'), id('d')});
  CHECK(field(*ds, 0, 1) == std::vector<int32_t>{id('b'), id('c'), id('d'), id('e')});
  CHECK(field(*ds, 1, 0) == std::vector<int32_t>{id('e'), id('f'), id('g'), id('h')});
  CHECK(field(*ds, 1, 1) == std::vector<int32_t>{id('f'), id('g'), id('h'), id('i')});
}

TEST_CASE("text: the window length follows the model's input, tokens alone is enough") {
  test::TempDir dir("text_len");
  write(dir / "a.txt", std::string(100, 'x'));
  auto ds = data::open_dataset("text:" + (dir / "a.txt"), "", {{"tokens", DType::I32, {9}}}, 1);
  CHECK(ds->size() == 11);  // (100 - 1) / 9
  CHECK(ds->fields()[0].shape == Shape{9});
}

TEST_CASE("text: a real licence text opens") {
  const std::string gpl = "/usr/share/common-licenses/GPL-3";
  auto ds = data::open_dataset("text:" + gpl, "", {{"tokens", DType::I32, {64}}}, 1);
  CHECK(ds->size() > 400);
  for (int32_t v : field(*ds, 3, 1)) {
    CHECK(v >= 0);
    CHECK(v < 96);
  }
}

TEST_CASE("text: errors name the file and what is wrong") {
  test::TempDir dir("text_err");
  write(dir / "short.txt", "abcd");
  Error e = text_error("text:" + (dir / "short.txt"));
  CHECK(e.kind() == ErrorKind::Data);
  CHECK(std::string(e.what()).find("short.txt has 4 bytes") != std::string::npos);

  e = text_error("text:" + (dir / "missing.txt"));
  CHECK(e.kind() == ErrorKind::Io);
  CHECK(std::string(e.what()).find("missing.txt") != std::string::npos);

  e = text_error("text:");
  CHECK(std::string(e.what()).find("names no file") != std::string::npos);

  e = text_error("text:" + (dir / "short.txt"), {{"image", DType::F32, {4}}});
  CHECK(std::string(e.what()).find("no input `tokens` or `targets`") != std::string::npos);

  e = text_error("text:" + (dir / "short.txt"), {{"tokens", DType::F32, {4}}});
  CHECK(std::string(e.what()).find("yields i32[seq] windows") != std::string::npos);

  e = text_error("text:" + (dir / "short.txt"), {{"tokens", DType::I32, {4}}, {"targets", DType::I32, {5}}});
  CHECK(std::string(e.what()).find("different lengths (4 and 5)") != std::string::npos);
}
