// Boundary values the config_values fuzz target found to crash or wrap (issue 30; reproducers in
// tests/fuzz/crashes/config_values/): each is now a Config error located at the key, with a hint.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "frontend/config/rules.hpp"
#include "iputrain/config_loader.hpp"
#include "layout_check.hpp"

namespace config = iputrain::config;

namespace {

iputrain::Error error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    (void)config::parse(text, "b.toml", sets);
  } catch (const iputrain::Error& e) {
    return e;
  }
  FAIL("the config loaded: " << text);
  return iputrain::Error(iputrain::ErrorKind::Internal, "unreachable");
}

void refused_at(const std::string& text, const std::string& part, int line) {
  INFO(text);
  const iputrain::Error e = error_of(text);
  CHECK(e.kind() == iputrain::ErrorKind::Config);
  CHECK_MESSAGE(std::string(e.what()).find(part) != std::string::npos, e.render());
  REQUIRE(e.span().valid());
  CHECK(e.span().line == line);
  CHECK_FALSE(e.hint().empty());
}

}  // namespace

// Each wrapped to 0 in an int32 or sized a vector: bad_alloc (accumulation), length_error (IPUs,
// prefetch slots), SIGFPE (process_count), "0 stages" (auto_stages).
TEST_CASE("integer keys that count IPUs, micro-batches, slots or processes are bounded") {
  refused_at("[ipu]\nauto_select_ipus = 4294967296\n", "must be between 1 and 1024", 2);
  refused_at("[pipeline]\ngradient_accumulation_count = 4294967296\n", "must be between 1 and 65536", 2);
  refused_at("[data]\nprefetch_depth = 9223372036854775807\n", "must be between 1 and 1024", 2);
  refused_at("[pipeline]\nauto_stages = 4294967296\n", "must be between 0 and 2147483647", 2);
  refused_at("[ipu.experimental.multi_replica_distribution]\nprocess_count = 4294967296\n",
             "must be between 0 and 2147483647", 2);
  refused_at("[ipu.experimental.multi_replica_distribution]\nprocess_index = 4294967296\n",
             "must be between 0 and 2147483647", 2);
  // tiles x bytes per tile overflowed int64 in the cost model (UBSan, the config_values campaign).
  refused_at("[device]\nmemory_per_tile = 9223372036854775807\n", "must be between 1 and 1099511627776", 2);
  refused_at("[device]\ntiles_per_ipu = 9223372036854775807\n", "must be between 1 and 1048576", 2);
  CHECK_NOTHROW(
      (void)config::parse("[ipu]\nauto_select_ipus = 1024\n[pipeline]\ngradient_accumulation_count = "
                          "65536\n[data]\nprefetch_depth = 1024\n"));
}

TEST_CASE("a NUL in a string value is refused") {
  refused_at("[checkpoint]\ndir = \"runs/\\u0000\"\n", "holds a NUL character", 2);
  refused_at("[ipu]\nserialization_output_folder = \"\\u0000\"\n", "holds a NUL character", 2);
}

// The planner found the shared IPU only when it built the timeline, and said so without a place.
TEST_CASE("a schedule of one position per IPU with every stage on the only IPU is refused at the key") {
  const iputrain::Config c = config::parse("[pipeline]\nschedule = \"zero_bubble\"\n", "b.toml");
  try {
    (void)iputrain::config_test::check_against_model(c, {"a", "b"}, -1, true);
    FAIL("accepted");
  } catch (const iputrain::Error& e) {
    CHECK(std::string(e.what()).find("cannot train the model's 2 stages on 1 IPU") != std::string::npos);
    REQUIRE(e.span().valid());
    CHECK(e.span().line == 2);
  }
  CHECK_NOTHROW((void)iputrain::config_test::check_against_model(c, {"a"}, -1, true));
  CHECK_NOTHROW(
      (void)iputrain::config_test::check_against_model(c, {"a", "b"}, -1, false));  // inference runs them in turn
}
