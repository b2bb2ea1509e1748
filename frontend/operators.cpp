#include "frontend/operators.hpp"

#include <array>

namespace iputrain::frontend::ast {

namespace {

struct Spelling {
  Operator op;
  std::string_view text;
  bool unary;
};

// The one table of spellings, read by the parser; `-` and `+` are both unary and binary.
constexpr std::array<Spelling, 19> kSpellings{{
    {Operator::Add, "+", false},       {Operator::Sub, "-", false},           {Operator::Mul, "*", false},
    {Operator::Div, "/", false},       {Operator::FloorDiv, "//", false},     {Operator::Mod, "%", false},
    {Operator::Pow, "**", false},      {Operator::MatMul, "@", false},        {Operator::Equal, "==", false},
    {Operator::NotEqual, "!=", false}, {Operator::Less, "<", false},          {Operator::LessEqual, "<=", false},
    {Operator::Greater, ">", false},   {Operator::GreaterEqual, ">=", false}, {Operator::And, "and", false},
    {Operator::Or, "or", false},       {Operator::Negate, "-", true},         {Operator::Plus, "+", true},
    {Operator::Not, "not", true},
}};

std::optional<Operator> find(std::string_view text, bool unary) {
  for (const Spelling& s : kSpellings) {
    if (s.unary == unary && s.text == text) {
      return s.op;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Operator> binary_operator(std::string_view text) { return find(text, false); }

std::optional<Operator> unary_operator(std::string_view text) { return find(text, true); }

bool is_ordering(Operator op) {
  return op == Operator::Less || op == Operator::LessEqual || op == Operator::Greater || op == Operator::GreaterEqual;
}

}  // namespace iputrain::frontend::ast
