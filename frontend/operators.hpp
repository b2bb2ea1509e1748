// The model language's operators: each spelling is mapped once, by the parser, to an Operator the
// elaborator switches on.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace iputrain::frontend::ast {

enum class Operator : uint8_t {
  None,  //!< not an operator expression
  // binary arithmetic
  Add,       //!< +
  Sub,       //!< -
  Mul,       //!< *
  Div,       //!< / (true division)
  FloorDiv,  //!< //
  Mod,       //!< %
  Pow,       //!< **
  MatMul,    //!< @
  // comparisons
  Equal,         //!< ==
  NotEqual,      //!< !=
  Less,          //!< <
  LessEqual,     //!< <=
  Greater,       //!< >
  GreaterEqual,  //!< >=
  // logical (short-circuit)
  And,  //!< and
  Or,   //!< or
  // unary
  Negate,  //!< unary -
  Plus,    //!< unary +
  Not,     //!< not
};

//! The binary operator spelled `text` ("+", "//", "and", …), or nothing.
std::optional<Operator> binary_operator(std::string_view text);
//! The unary operator spelled `text` ("-", "+", "not"), or nothing.
std::optional<Operator> unary_operator(std::string_view text);
//! <, <=, > and >=: the comparisons that order their operands.
bool is_ordering(Operator op);

}  // namespace iputrain::frontend::ast
