#include "frontend/config/validate.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <set>

namespace iputrain::config {

SourceSpan Locator::span(const toml::source_region& r) const {
  if (r.begin.line == 0 || file < 0) {
    return {};
  }
  SourceSpan s{file, line > 0 ? line : static_cast<int32_t>(r.begin.line),
               static_cast<int32_t>(r.begin.column) + col_shift, 1};
  if (r.end.line == r.begin.line && r.end.column > r.begin.column) {
    s.length = static_cast<int32_t>(r.end.column - r.begin.column);
  }
  return s;
}

std::string_view toml_type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    default:
      return "nothing";
  }
}

ParamValue parse_scalar(const std::string& text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  const char* b = text.data();
  const char* e = b + text.size();
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(b, e, i); ec == std::errc{} && p == e && !text.empty()) {
    return i;
  }
  double d = 0;
  if (auto [p, ec] = std::from_chars(b, e, d); ec == std::errc{} && p == e && !text.empty()) {
    return d;
  }
  if (text == "true" || text == "false") {
    return text == "true";
  }
  return text;
}

namespace {

//! Validation of one key's value; `where` names the element being checked (`k[2]`).
class Checker {
 public:
  Checker(const KeySpec& k, const Locator& loc, SourceSpan fallback, const std::string& origin,
          const std::shared_ptr<const SourceManager>& sources)
      : k_(k), loc_(loc), fallback_(fallback), origin_(origin), sources_(sources) {}

  Value run(const toml::node& node) {
    switch (k_.type) {
      case KeyType::Int:
        return integer(node, k_.path);
      case KeyType::Float:
        return floating(node, k_.path);
      case KeyType::Bool:
        if (!node.is_boolean()) {
          wrong_type(node, k_.path, "boolean", quoted_hint(node, "write `true` or `false`"));
        }
        return node.as_boolean()->get();
      case KeyType::String:
        if (!node.is_string()) {
          wrong_type(node, k_.path, "string", node.is_value() ? "put the value in double quotes" : "");
        }
        // A NUL ends a path or a name in every system call it reaches (config_values fuzz, issue 30).
        if (node.as_string()->get().find('\0') != std::string::npos) {
          fail(at(node), fmt::format("`{}`{} holds a NUL character (\\u0000)", k_.path, origin_),
               fmt::format("`{}`: {}", k_.path, k_.doc));
        }
        return node.as_string()->get();
      case KeyType::Enum:
        return enumeration(node, k_.path);
      case KeyType::AutoBool:
        return auto_bool(node);
      case KeyType::IntList:
        return list(node, k_.path,
                    [&](const toml::node& e, const std::string& where) { return integer(e, where); });
      case KeyType::FloatList:
        return list(node, k_.path, [&](const toml::node& e, const std::string& where) { return floating(e, where); });
      case KeyType::NestedIntList:
        return list(node, k_.path, [&](const toml::node& e, const std::string& where) -> Value {
          if (e.is_array()) {
            if (e.as_array()->empty()) {
              fail(at(e), fmt::format("`{}`{} is an empty list", where, origin_),
                   "a stage runs on at least one IPU");
            }
            return list(e, where, [&](const toml::node& x, const std::string& w) { return integer(x, w); });
          }
          return integer(e, where, "integer or list of integers");
        });
      case KeyType::BoolList:
        return list(node, k_.path, [&](const toml::node& e, const std::string& where) -> Value {
          if (!e.is_boolean()) {
            wrong_type(e, where, "boolean", "write `true` or `false`");
          }
          return e.as_boolean()->get();
        });
      case KeyType::StringList:
        return list(node, k_.path, [&](const toml::node& e, const std::string& where) -> Value {
          if (!e.is_string()) {
            wrong_type(e, where, "string", "put each name in double quotes");
          }
          // A list of names from a fixed set (the [tune] section's schedules, ...).
          return k_.allowed.empty() ? Value(e.as_string()->get()) : enumeration(e, where);
        });
      case KeyType::OptionMap:
        return options(node, k_.path);
      case KeyType::StageOptions:
        return stage_options(node, k_.path);
      case KeyType::StageOptionsList:
        return list(node, k_.path,
                    [&](const toml::node& e, const std::string& where) { return stage_options(e, where); });
      case KeyType::FreeTable:
        break;
    }
    fail(at(node), fmt::format("`{}` cannot be set here", k_.path), {});
  }

 private:
  [[noreturn]] void fail(SourceSpan span, std::string message, std::string hint) {
    throw Error(ErrorKind::Config, std::move(message), span, std::move(hint)).with_sources(sources_);
  }

  SourceSpan at(const toml::node& n) const {
    SourceSpan s = loc_.span(n.source());
    return s.valid() ? s : fallback_;
  }

  [[noreturn]] void wrong_type(const toml::node& n, const std::string& where, std::string_view expected,
                               std::string hint) {
    if (hint.empty()) {
      hint = fmt::format("`{}`: {}", k_.path, k_.doc);
    }
    fail(at(n),
         fmt::format("wrong type for `{}`{}: expected {}, found {}", where, origin_, expected,
                     toml_type_name(n.type())),
         std::move(hint));
  }

  // A quoted number or boolean is the most common wrong type; say so.
  static std::string quoted_hint(const toml::node& n, std::string otherwise) {
    if (const auto* s = n.as_string()) {
      if (!std::holds_alternative<std::string>(parse_scalar(s->get()))) {
        return "remove the quotes around the value";
      }
    }
    return otherwise;
  }

  void check_range(const toml::node& n, const std::string& where, double d, const Value& v) {
    if (k_.range.contains(d)) {
      return;
    }
    fail(at(n), fmt::format("`{}`{} must be {}, found {}", where, origin_, k_.range.str(), toml_text(v)),
         fmt::format("`{}`: {}", k_.path, k_.doc));
  }

  Value integer(const toml::node& n, const std::string& where, std::string_view expected = "integer") {
    if (!n.is_integer()) {
      std::string hint = quoted_hint(n, "");
      if (const auto* f = n.as_floating_point()) {
        const double d = f->get();
        if (std::abs(d) < 9e18 && d == std::trunc(d)) {
          hint = "write the number without a decimal point";
        }
      }
      wrong_type(n, where, expected, hint);
    }
    const Value v = n.as_integer()->get();
    check_range(n, where, static_cast<double>(std::get<int64_t>(v)), v);
    return v;
  }

  Value floating(const toml::node& n, const std::string& where) {
    Value v;
    if (const auto* i = n.as_integer()) {
      v = static_cast<double>(i->get());  // an integer is a fine float
    } else if (const auto* f = n.as_floating_point()) {
      v = f->get();
    } else {
      wrong_type(n, where, "float", quoted_hint(n, ""));
    }
    check_range(n, where, std::get<double>(v), v);
    return v;
  }

  Value enumeration(const toml::node& n, const std::string& where) {
    if (!n.is_string()) {
      wrong_type(n, where, "string", fmt::format("`{}` is {}", k_.path, k_.expected()));
    }
    const std::string& s = n.as_string()->get();
    if (const auto i = spelling_index(k_.allowed, s)) {
      return k_.allowed[*i];
    }
    std::string near = nearest_name(s, k_.allowed);
    if (near.empty()) {
      // Case and separators are ignored, so compare the folded spellings too.
      std::vector<std::string> folded;
      for (const auto& a : k_.allowed) {
        folded.push_back(enum_folded(a));
      }
      std::string f = nearest_name(enum_folded(s), folded);
      for (size_t i = 0; i < folded.size() && !f.empty(); ++i) {
        if (folded[i] == f) {
          near = k_.allowed[i];
        }
      }
    }
    fail(at(n),
         fmt::format("invalid value \"{}\" for `{}`{}: expected one of \"{}\"", s, where, origin_,
                     fmt::join(k_.allowed, "\", \"")),
         near.empty() ? fmt::format("allowed values: {}", fmt::join(k_.allowed, ", "))
                      : fmt::format("did you mean \"{}\"?", near));
  }

  Value auto_bool(const toml::node& n) {
    if (const auto* b = n.as_boolean()) {
      return b->get();
    }
    if (const auto* s = n.as_string()) {
      if (enum_folded(s->get()) == "auto") {
        return std::string("auto");
      }
      fail(at(n),
           fmt::format("invalid value \"{}\" for `{}`{}: expected true, false or \"auto\"", s->get(), k_.path,
                       origin_),
           "\"auto\" lets the planner decide");
    }
    wrong_type(n, k_.path, "boolean or \"auto\"", "write `true`, `false` or \"auto\"");
  }

  template <class Element>
  Value list(const toml::node& n, const std::string& where, Element element) {
    const toml::array* a = n.as_array();
    if (a == nullptr) {
      wrong_type(n, where, "array",
                 n.is_value() ? fmt::format("write a list, e.g. `{} = [...]`", leaf(where)) : "");
    }
    ValueList out;
    std::set<std::string> seen;
    for (size_t i = 0; i < a->size(); ++i) {
      const toml::node& e = *a->get(i);
      out.push_back(element(e, fmt::format("{}[{}]", where, i)));
      if (k_.unique && where == k_.path && !seen.insert(toml_text(out.back())).second) {
        fail(at(e), fmt::format("`{}`{} lists {} twice", k_.path, origin_, toml_text(out.back())),
             "each entry may appear only once");
      }
    }
    return out;
  }

  Value options(const toml::node& n, const std::string& where) {
    const toml::table* t = n.as_table();
    if (t == nullptr) {
      wrong_type(n, where, "table", "write options as `{ name = \"value\" }`");
    }
    ValueTable out;
    for (auto&& [name, value] : *t) {
      const std::string item = fmt::format("{}.{}", where, name.str());
      if (!value.is_string()) {
        std::string shown = scalar_text(value);
        wrong_type(value, item, "string",
                   value.is_value()
                       ? fmt::format("Poplar options are strings: write `{} = \"{}\"`", name.str(), shown)
                       : "Poplar options are strings");
      }
      out[std::string(name.str())] = value.as_string()->get();
    }
    return out;
  }

  Value stage_options(const toml::node& n, const std::string& where) {
    const toml::table* t = n.as_table();
    if (t == nullptr) {
      wrong_type(n, where, "table", "write `{ convolution_options = {...}, matmul_options = {...} }`");
    }
    static const std::vector<std::string> parts = {"convolution_options", "matmul_options"};
    ValueTable out;
    for (auto&& [name, value] : *t) {
      const std::string part(name.str());
      if (std::find(parts.begin(), parts.end(), part) == parts.end()) {
        std::string near = nearest_name(part, parts);
        fail(loc_.span(name.source()).valid() ? loc_.span(name.source()) : fallback_,
             fmt::format("unknown key `{}.{}`{}", where, part, origin_),
             near.empty() ? "stage options have `convolution_options` and `matmul_options`"
                          : fmt::format("did you mean `{}`?", near));
      }
      out[part] = options(value, fmt::format("{}.{}", where, part));
    }
    return out;
  }

  static std::string scalar_text(const toml::node& n) {
    if (const auto* i = n.as_integer()) {
      return fmt::format("{}", i->get());
    }
    if (const auto* f = n.as_floating_point()) {
      return fmt::format("{}", f->get());
    }
    if (const auto* b = n.as_boolean()) {
      return b->get() ? "true" : "false";
    }
    return "...";
  }

  static std::string leaf(const std::string& path) {
    size_t dot = path.rfind('.');
    return dot == std::string::npos ? path : path.substr(dot + 1);
  }

  const KeySpec& k_;
  const Locator& loc_;
  SourceSpan fallback_;
  const std::string& origin_;
  const std::shared_ptr<const SourceManager>& sources_;
};

}  // namespace

Value validate_node(const KeySpec& k, const toml::node& node, const Locator& loc, SourceSpan fallback,
                    const std::string& origin, const std::shared_ptr<const SourceManager>& sources) {
  return Checker(k, loc, fallback, origin, sources).run(node);
}

}  // namespace iputrain::config
