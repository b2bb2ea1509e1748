// Hostile model texts (frontend/source_limits.hpp): bytes that are not UTF-8, NUL bytes, brackets
// nested too deep, oversized files (and configs), loops that would unroll forever. Each is a located syntax error with a hint, never a crash, and
// the quoted line stays printable and short.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "iputrain/config_loader.hpp"
#include "iputrain/model.hpp"

using iputrain::Error;
using iputrain::ErrorKind;
using iputrain::Model;

namespace {

std::string rendered(const std::string& text) {
  try {
    (void)Model::parse(text, "hostile.ipu");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Syntax);
    return e.render();
  }
  FAIL("the text was accepted");
  return {};
}

bool has(const std::string& s, const std::string& part) {
  if (s.find(part) != std::string::npos) {
    return true;
  }
  MESSAGE("in: " << s);
  return false;
}

const std::string kHead = "model m(batch: int = 2) {\n  input x: f32[batch, 2]\n";

}  // namespace

TEST_CASE("bytes that are not UTF-8 are located, and the quoted line shows them as ?") {
  const std::string r = rendered(kHead + "  output y = x \xff\xfe\n}\n");
  CHECK(has(r, "hostile.ipu:3:16: error: byte 0xff is not UTF-8 text"));
  CHECK(has(r, "    output y = x ??\n"));
  CHECK(has(r, "hint: is this the right file?"));
  // Overlong encodings and surrogates are not UTF-8 either; a NUL byte is refused too.
  CHECK(has(rendered(kHead + "  # \xc0\xaf\n}\n"), "hostile.ipu:3:5: error: byte 0xc0 is not UTF-8"));
  CHECK(has(rendered(kHead + "  # \xed\xa0\x80\n}\n"), "byte 0xed is not UTF-8"));
  CHECK(has(rendered(kHead + std::string("  output y = x\0\n}\n", 18)), "byte 0x00 is not allowed in a model file"));
  // Characters that are UTF-8 are fine in comments and strings.
  CHECK_NOTHROW(Model::parse(kHead + "  # π ≈ 3.14159, «ok»\n  output x\n}\n", "ok.ipu"));
}

TEST_CASE("a binary file is refused at its first bad byte with a short quoted line") {
  std::string bytes;
  for (int i = 0; i < 5000; ++i) {
    bytes += static_cast<char>((i * 131 + 7) % 256);
  }
  const std::string r = rendered(bytes);
  CHECK(has(r, "hostile.ipu:"));
  CHECK(has(r, "is not"));
  // Every quoted line is at most the window (160 columns, plus the ellipses and indent).
  size_t longest = 0;
  for (size_t at = 0, next; at < r.size(); at = next + 1) {
    next = r.find('\n', at);
    longest = std::max(longest, (next == std::string::npos ? r.size() : next) - at);
    if (next == std::string::npos) {
      break;
    }
  }
  CHECK(longest < 200 * 3);  // bytes, not columns: an ellipsis is 3 bytes
}

TEST_CASE("brackets nested too deep are refused where they go too deep, in strings and comments not") {
  const std::string deep = std::string(300, '(') + "x" + std::string(300, ')');
  const std::string r = rendered(kHead + "  output y = " + deep + "\n}\n");
  CHECK(has(r, "hostile.ipu:3:213: error: brackets nested more than 200 deep"));
  CHECK(has(r, "hint: give the inner expression a name of its own"));
  CHECK(has(r, "    \xe2\x80\xa6((("));  // a window around the column, starting with an ellipsis
  // 200 levels parse; brackets in comments and strings do not count.
  const std::string ok = std::string(150, '(') + "x" + std::string(150, ')');
  CHECK_NOTHROW(Model::parse(kHead + "  # " + std::string(500, '(') + "\n  output y = " + ok + "\n}\n", "ok.ipu"));
}

TEST_CASE("a file larger than a model may be is refused before it is parsed") {
  const std::string r = rendered(kHead + "  # " + std::string(size_t{17} << 20, 'a') + "\n}\n");
  CHECK(has(r, "hostile.ipu:1:1: error: the file is"));
  CHECK(has(r, "more than the 16777216 a model or module may have"));
}

TEST_CASE("an operator chain too long for the parser's recursion is refused, at the limit it parses") {
  std::string chain = "x";
  for (int i = 0; i < 5000; ++i) {
    chain += " + x";
  }
  CHECK(has(rendered(kHead + "  output y = " + chain + "\n}\n"), "error: more than 256 operators in one statement"));
  CHECK(has(rendered(kHead + "  output y = " + std::string(5000, '-') + "x\n}\n"), "more than 256 operators"));
  std::string nots;
  for (int i = 0; i < 2000; ++i) {
    nots += "not ";
  }
  CHECK(has(rendered(kHead + "  if " + nots + "true { input z: f32[1] }\n  output x\n}\n"), "more than 256 operators"));
  // 255 operators in brackets nested 190 deep: the worst accepted case parses and elaborates (under
  // AddressSanitizer too, whose stack frames are several times larger).
  std::string worst = std::string(190, '(') + "x";
  for (int i = 0; i < 255; ++i) {
    worst += " + x";
  }
  worst += std::string(190, ')');
  CHECK_NOTHROW(Model::parse(kHead + "  output y = " + worst + "\n}\n", "ok.ipu"));
  // The count starts again with each statement.
  std::string many;
  for (int s = 0; s < 5; ++s) {
    many += "  y" + std::to_string(s) + " = x";
    for (int i = 0; i < 250; ++i) {
      many += " + x";
    }
    many += "\n";
  }
  CHECK_NOTHROW(Model::parse(kHead + many + "  output y4\n}\n", "ok.ipu"));
}

TEST_CASE("nested loops that would build millions of nodes stop with a located error, quickly") {
  try {
    (void)Model::parse(kHead + "  h = x\n  for i in 0..10000 { for j in 0..10000 { h = h * 1.0 } }\n  output y = h\n}\n",
                       "loops.ipu");
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(has(e.render(), "loops.ipu:4:43: error: building the model ran more than 500000 statements"));
    CHECK(has(e.render(), "hint: 'for' loops and calls are unrolled at compile time"));
  }
}

TEST_CASE("a million-layer loop stops with a located error, quickly") {
  try {
    (void)Model::parse("import nn\n" + kHead + "  h = x\n  for i in 0..1000000 { h = nn.dense(h, 2) }\n  output y = h\n}\n",
                       "deep.ipu");
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(has(e.render(), "deep.ipu:5:"));
    CHECK(has(e.render(), "hint: 'for' is unrolled at compile time; keep it under 100000 iterations"));
  }
}

TEST_CASE("2 GB model and config files are refused from their size, before they are read") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("iputrain-limits-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  // Sparse files: 2 GiB long, nothing written (a single 2 GB line of NULs if anything read them).
  for (const char* name : {"big.ipu", "big.toml"}) {
    std::ofstream(dir / name) << "x";
    fs::resize_file(dir / name, uintmax_t{2} << 30);
  }
  try {
    (void)Model::load((dir / "big.ipu").string());
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Io);
    CHECK(has(e.what(), "model file `" + (dir / "big.ipu").string() + "` is 2048.0 MiB, more than the 16 MiB"));
  }
  try {
    (void)iputrain::config::load((dir / "big.toml").string());
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(has(e.what(), "config file `" + (dir / "big.toml").string() + "` is 2048.0 MiB"));
  }
  fs::remove_all(dir);
}

// A model parameter near int64's maximum made a parameter's byte size wrap, and the engine failed
// on its arena with an internal error (config_values fuzz, issue 30; crashes/config_values/
// model-hidden-int64-max): no value may hold more than 2^40 elements, said at the declaration.
TEST_CASE("a value of more than 2^40 elements is a located error") {
  const std::string text =
      "import nn\nmodel m(batch: int = 2, hidden: int = 4) {\n  input x: f32[batch, 3]\n"
      "  h = nn.dense(x, hidden)\n  minimize mean(h)\n}\n";
  CHECK_NOTHROW((void)Model::parse(text, "big.ipu", {{"hidden", int64_t{1} << 20}}));
  for (const int64_t hidden : {int64_t{1} << 40, int64_t{9223372036854775807}}) {
    try {
      (void)Model::parse(text, "big.ipu", {{"hidden", hidden}});
      FAIL("accepted hidden = " << hidden);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Semantic);
      CHECK(has(e.what(), "is too large"));
      CHECK(e.span().valid());
    }
  }
}
