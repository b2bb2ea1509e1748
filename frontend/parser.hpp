// Model file text -> syntax tree.
#pragma once

#include <string>

#include "frontend/ast.hpp"

namespace iputrain::frontend {

//! Parses `text` (registered as file index `file` in the SourceManager the caller owns) into a
//! syntax tree. Throws Error(Syntax) at the first syntax error, and Error(Semantic) for
//! statements in the wrong place (`return` outside a function, `input` outside a model, …).
//! The errors carry spans but no sources: the caller attaches them.
ast::Module parse_module(const std::string& text, int32_t file, const std::string& path);

}  // namespace iputrain::frontend
