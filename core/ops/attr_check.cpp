// check_attrs: the one check of a node's attributes against its op's AttrSpecs (Graph::add runs
// it). The message is the predicate only ("must be an int"): Graph::add names the attribute and
// the op, as the model language does when it knows where the argument was written.
#include <fmt/format.h>

#include <string>
#include <variant>
#include <vector>

#include "core/ops/op.hpp"
#include "iputrain/error.hpp"

namespace iputrain::ir {

namespace {
namespace impl_attr_check {

std::string quoted_list(std::span<const std::string_view> items) {
  std::string list;
  for (std::string_view s : items) {
    list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", s);
  }
  return list;
}

std::string range_text(const AttrSpec& spec) {
  if (spec.min && spec.max) {
    return fmt::format("in [{}, {}]", *spec.min, *spec.max);
  }
  return spec.min ? fmt::format("at least {}", *spec.min) : fmt::format("at most {}", *spec.max);
}

void check_one(const AttrSpec& spec, const AttrValue& value) {
  auto fail = [&](std::string message, std::string hint = {}) {
    throw OpError{std::move(message), std::move(hint), std::string(spec.name)};
  };
  double number = 0;
  if (spec.type == AttrType::String) {
    const auto* s = std::get_if<std::string>(&value);
    if (s == nullptr) {
      fail("must be a string");
    }
    if (spec.choices.empty()) {
      return;
    }
    for (std::string_view c : spec.choices) {
      if (c == *s) {
        return;
      }
    }
    const std::string near = nearest_name(*s, std::vector<std::string>(spec.choices.begin(), spec.choices.end()));
    fail(fmt::format("must be one of {}, got \"{}\"", quoted_list(spec.choices), *s),
         near.empty() ? "" : fmt::format("did you mean \"{}\"?", near));
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    number = static_cast<double>(*i);
  } else if (const auto* d = std::get_if<double>(&value); d != nullptr && spec.type == AttrType::Float) {
    number = *d;
  } else {
    fail(spec.type == AttrType::Int ? "must be an int" : "must be a number");
  }
  if ((spec.min && number < *spec.min) || (spec.max && number > *spec.max)) {
    fail(fmt::format("must be {}, got {}", range_text(spec), number));
  }
}

}  // namespace impl_attr_check
}  // namespace

void check_attrs(const OpDef& def, const Attrs& attrs) {
  for (const AttrSpec& spec : def.attrs) {
    const AttrValue* value = attrs.find(spec.name);
    if (value != nullptr) {
      impl_attr_check::check_one(spec, *value);
    } else if (spec.required) {
      throw OpError{"is required", "", std::string(spec.name)};
    }
  }
}

}  // namespace iputrain::ir
