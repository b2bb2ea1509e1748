// The data-source table (core/data/source_list.hpp): every row is reachable by its kind, listed
// by the hints and the config docs, and documented in docs/data.md, so a new format that is not
// documented fails here.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "core/data/source_table.hpp"
#include "error_text.hpp"

namespace iputrain {
namespace {

using test::error_of;

std::string data_doc() {
  std::ifstream in(std::string(IPUTRAIN_SOURCE_DIR) + "/docs/data.md", std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_CASE("data sources: every row of the table is documented in docs/data.md") {
  const std::string doc = data_doc();
  const size_t sources = doc.find("## Sources");
  REQUIRE(sources != std::string::npos);
  REQUIRE(!data_source_table().empty());
  for (const DataSourceDef* d : data_source_table()) {
    INFO(d->kind);
    // The row of the Sources table: "| `KIND:WHERE…` | …".
    CHECK(doc.find(fmt::format("| `{}:{}", d->kind, d->where), sources) != std::string::npos);
    CHECK(!d->doc.empty());
    CHECK(d->example.substr(0, d->kind.size() + 1) == fmt::format("{}:", d->kind));
    CHECK(find_data_source(d->kind) == d);
    const std::string form = fmt::format("\"{}:{}\"", d->kind, d->where);
    CHECK(data_source_hint().find(form) != std::string::npos);
    CHECK(data_source_docs().find(fmt::format("{} ({})", form, d->doc)) != std::string::npos);
  }
}

TEST_CASE("data sources: an unknown kind is refused with the nearest kind and the table's list") {
  auto e = error_of([] { (void)data::open_dataset("cvs:a.csv", "", {}, 0); });
  CHECK(e.kind == ErrorKind::Data);
  CHECK(e.message == "unknown kind of data source \"cvs\" in \"cvs:a.csv\"");
  CHECK(e.hint == "did you mean \"csv:a.csv\"? " + data_source_hint());
  auto none = error_of([] { (void)data::open_dataset("zzzzzzzz:x", "", {}, 0); });
  CHECK(none.hint == data_source_hint());
  auto empty = error_of([] { (void)data::open_dataset("csv:", "", {}, 0); });
  CHECK(empty.message == "data source \"csv:\" names no file");
  auto no_dir = error_of([] { (void)data::open_dataset("images:,resize=bilinear", "", {}, 0); });
  CHECK(no_dir.message == "data source \"images:,resize=bilinear\" names no directory");
  CHECK(data_source_hint().rfind("data sources are \"idx:PREFIX\", \"npy:DIR\", ", 0) == 0);
}

}  // namespace
}  // namespace iputrain
