// docs/cli.md against the command's own --help texts (issue 33, item 8): every option of every
// command is in the command's synopsis line and in its section, with the values the command
// accepts, so the page cannot fall behind the command again.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "run_cli.hpp"
#include "tests/regex_util.hpp"

namespace {

struct HelpOption {
  std::vector<std::string> names;  //!< `-o`, `--out`
  std::set<std::string> choices;   //!< the closed list of values `--help` shows as `:{a,b}`
};

//! The lines of a `--help` text's section (`Options:`, `Subcommands:`), up to the next blank line.
std::vector<std::string> section(const std::string& help, const std::string& title) {
  std::vector<std::string> lines;
  std::istringstream in(help);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == title) {
      inside = true;
    } else if (inside && line.empty()) {
      break;
    } else if (inside) {
      lines.push_back(line);
    }
  }
  return lines;
}

std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> names;
  for (const std::string& line : section(help, "Subcommands:")) {
    names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return names;
}

std::vector<HelpOption> options(const std::string& help) {
  std::vector<HelpOption> out;
  for (const std::string& line : section(help, "Options:")) {
    if (line.rfind("  -", 0) != 0) {
      continue;  // a description continued on its own line
    }
    const std::string spec = line.substr(2, line.find(' ', 2) - 2);
    HelpOption o;
    std::istringstream names(spec.substr(0, spec.find_first_of("{:")));
    for (std::string n; std::getline(names, n, ',');) {
      o.names.push_back(n);
    }
    const std::vector<std::string> m = test_regex::search(line, R"(:\{([^}]*)\})");
    if (!m.empty()) {
      std::istringstream values(m[1]);
      for (std::string v; std::getline(values, v, ',');) {
        o.choices.insert(v);
      }
    }
    out.push_back(o);
  }
  return out;
}

//! `word` in `text` as a whole word: not followed or preceded by a letter, digit or dash.
bool mentions(const std::string& text, const std::string& word) {
  const auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const bool before = at > 0 && part(text[at - 1]);
    const bool after = at + word.size() < text.size() && part(text[at + word.size()]);
    if (!before && !after) {
      return true;
    }
  }
  return false;
}

//! The synopsis line of `iputrain PATH` in the page's first code block ("" if there is none).
std::string synopsis(const std::string& page, const std::string& path) {
  std::istringstream in(page.substr(0, page.find("```", page.find("```") + 3)));
  const std::string start = "^iputrain +" + path + "( |$)";
  for (std::string line; std::getline(in, line);) {
    if (test_regex::found(line, start)) {
      return line;
    }
  }
  return "";
}

//! The text of the page's `## TITLE` section.
std::string page_section(const std::string& page, const std::string& title) {
  const size_t at = page.find("\n## " + title + "\n");
  if (at == std::string::npos) {
    return "";
  }
  return page.substr(at, page.find("\n## ", at + 1) - at);
}

//! The choices written after `--flag ` in a synopsis: `--split test|train` -> {test, train}.
std::set<std::string> written_choices(const std::string& line, const std::string& flag) {
  std::set<std::string> out;
  const std::vector<std::string> m = test_regex::search(line, flag + R"( ([a-z]+(\|[a-z]+)+))");
  if (!m.empty()) {
    std::istringstream values(m[1]);
    for (std::string v; std::getline(values, v, '|');) {
      out.insert(v);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("docs/cli.md names every option of every command, with the values it accepts") {
  const std::string page = cli_test::bytes_of("../../docs/cli.md");
  REQUIRE(!page.empty());
  const cli_test::Run top = cli_test::iputrain("--help");
  REQUIRE(top.status == 0);
  std::vector<std::string> paths;
  for (const std::string& cmd : subcommands(top.out)) {
    const std::vector<std::string> nested = subcommands(cli_test::iputrain(cmd + " --help").out);
    if (nested.empty()) {
      paths.push_back(cmd);
    }
    for (const std::string& sub : nested) {
      paths.push_back(cmd + " " + sub);
    }
  }
  REQUIRE(paths.size() >= 12);  // nine commands, `config` with four
  for (const std::string& path : paths) {
    CAPTURE(path);
    const cli_test::Run help = cli_test::iputrain(path + " --help");
    REQUIRE(help.status == 0);
    // A negatable flag's default (`--no-eval{false}`) is noise to a reader.
    CHECK(help.out.find("{false}") == std::string::npos);
    CHECK(help.out.find("{true}") == std::string::npos);
    const std::string line = synopsis(page, path);
    REQUIRE_MESSAGE(!line.empty(), "no synopsis line for `iputrain " << path << "` in docs/cli.md");
    const std::string body = page_section(page, path.substr(0, path.find(' ')));
    REQUIRE_MESSAGE(!body.empty(), "no `## " << path.substr(0, path.find(' ')) << "` section in docs/cli.md");
    for (const HelpOption& o : options(help.out)) {
      const std::string& name = o.names.back();
      if (name == "--help") {
        continue;
      }
      CAPTURE(name);
      const auto in = [&](const std::string& text) {
        return std::any_of(o.names.begin(), o.names.end(), [&](const std::string& n) { return mentions(text, n); });
      };
      CHECK_MESSAGE(in(line), "the synopsis of `iputrain " << path << "` lacks " << name);
      // `--set` is explained once, above the sections.
      CHECK_MESSAGE((name == "--set" || in(body)), "the section of `" << path << "` never mentions " << name);
      if (!o.choices.empty()) {
        std::set<std::string> written;
        for (const std::string& n : o.names) {
          const std::set<std::string> w = written_choices(line, n);
          written.insert(w.begin(), w.end());
        }
        const auto joined = [](const std::set<std::string>& v) {
          std::string out;
          for (const std::string& x : v) {
            out += (out.empty() ? "" : "|") + x;
          }
          return out;
        };
        CHECK_MESSAGE(written == o.choices, "the synopsis of `iputrain " << path << "` writes " << name << " "
                                                                         << joined(written) << ", --help "
                                                                         << joined(o.choices));
      }
    }
  }
}
