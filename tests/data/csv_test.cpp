// "csv:FILE": columns NAME and NAME.0 … NAME.k, parsed at open, bad cells located.
#include <doctest/doctest.h>

#include <fstream>

#include "core/data/dataset.hpp"
#include "error_text.hpp"
#include "temp_dir.hpp"

namespace iputrain {
namespace {

using test::error_of;

const std::vector<data::Field> kWanted = {{"x", DType::F32, {2, 2}}, {"label", DType::I32, {}}};

std::string write(const test::TempDir& dir, const std::string& text) {
  const std::string path = dir / "d.csv";
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST_CASE("csv: vector inputs from NAME.k columns, scalars from NAME, extra columns ignored") {
  test::TempDir dir("csv_roundtrip");
  const std::string path = write(dir,
                                 "id,x.0,x.1,x.2,x.3,label\r\n"
                                 "a,1,2.5,-3e2,4,7\r\n"
                                 "\n"
                                 "b, 0.125 ,+6,\"7\",8,2\n");
  auto ds = data::open_dataset("csv:" + path, "", kWanted, 0);
  REQUIRE(ds->size() == 2);
  float x[4];
  int32_t label = 0;
  ds->read(0, 0, x);
  CHECK(x[0] == 1.0f);
  CHECK(x[1] == 2.5f);
  CHECK(x[2] == -300.0f);
  ds->read(1, 0, x);
  CHECK(x[0] == 0.125f);
  CHECK(x[2] == 7.0f);
  ds->read(1, 1, &label);
  CHECK(label == 2);
  auto flag =
      data::open_dataset("csv:" + write(dir, "ok,v\ntrue,1\n0,2\n"), "", {{"ok", DType::Bool, {}}}, 0);
  uint8_t b = 9;
  flag->read(0, 0, &b);
  CHECK(b == 1);
  flag->read(1, 0, &b);
  CHECK(b == 0);
}

TEST_CASE("csv: a bad cell is located by file, line and column") {
  test::TempDir dir("csv_cells");
  const std::string path = write(dir, "x.0,x.1,x.2,x.3,label\n1,2,3,4,0\n1,2,oops,4,1\n");
  auto bad = error_of([&] { (void)data::open_dataset("csv:" + path, "", kWanted, 0); });
  CHECK(bad.kind == ErrorKind::Data);
  CHECK(bad.message == "`" + path + "`:3:5: the cell `oops` of column `x.2` is not a number");
  const std::string frac = write(dir, "x.0,x.1,x.2,x.3,label\n1,2,3,4,0\n1,2,3,4,1.5\n");
  auto e = error_of([&] { (void)data::open_dataset("csv:" + frac, "", kWanted, 0); });
  CHECK(e.message ==
        "`" + frac + "`:3:9: the cell `1.5` of column `label` is not a whole number in i32's range");
  CHECK(e.hint.find("declare it f32 and cast it") != std::string::npos);
  const std::string empty_cell = write(dir, "x.0,x.1,x.2,x.3,label\n1,2,3,,0\n");
  auto ec = error_of([&] { (void)data::open_dataset("csv:" + empty_cell, "", kWanted, 0); });
  CHECK(ec.message.find(":2:7: the cell `` of column `x.3`") != std::string::npos);
}

TEST_CASE("csv: missing columns are named, short rows and empty files refused") {
  test::TempDir dir("csv_columns");
  auto missing = error_of(
      [&] { (void)data::open_dataset("csv:" + write(dir, "x.0,x.2,label\n1,2,3\n"), "", kWanted, 0); });
  CHECK(missing.message.find("has no columns x.1, x.3 for the model's input `x: f32[2, 2]`") !=
        std::string::npos);
  CHECK(missing.hint.find("x.0 … x.3") != std::string::npos);
  auto short_row = error_of([&] {
    (void)data::open_dataset("csv:" + write(dir, "x.0,x.1,x.2,x.3,label\n1,2,3,4\n"), "", kWanted, 0);
  });
  CHECK(short_row.message.find(":2: the row has 4 cells but the header has 5 columns") != std::string::npos);
  auto empty = error_of([&] { (void)data::open_dataset("csv:" + write(dir, ""), "", kWanted, 0); });
  CHECK(empty.message.find("is empty") != std::string::npos);
  auto no_rows = error_of(
      [&] { (void)data::open_dataset("csv:" + write(dir, "x.0,x.1,x.2,x.3,label\n"), "", kWanted, 0); });
  CHECK(no_rows.message.find("no rows") != std::string::npos);
  auto twice = error_of([&] {
    (void)data::open_dataset("csv:" + write(dir, "label,label\n1,2\n"), "", {{"label", DType::I32, {}}}, 0);
  });
  CHECK(twice.message.find(":1:7: the column `label` appears twice") != std::string::npos);
  auto gone = error_of([&] { (void)data::open_dataset("csv:" + (dir / "none.csv"), "", kWanted, 0); });
  CHECK(gone.kind == ErrorKind::Io);
}

TEST_CASE("csv: without a model, NAME.k columns group into vectors") {
  test::TempDir dir("csv_fields");
  auto ds = data::open_dataset("csv:" + write(dir, "a.0,a.1,a.2,b\n1,2,3,4\n"), "", {}, 0);
  REQUIRE(ds->fields().size() == 2);
  CHECK(ds->fields()[0].str() == "a: f32[3]");
  CHECK(ds->fields()[1].str() == "b: f32[]");
}

}  // namespace
}  // namespace iputrain
