// Name scopes of the elaborator: builtins <- module <- function call or model body.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast.hpp"
#include "frontend/value.hpp"

namespace iputrain::frontend {

//! One level of names. Lookups walk to the parent; assignments stay in the level they are made in
//! (so a function body cannot rebind a module's names).
class Scope {
 public:
  explicit Scope(const Scope* parent = nullptr) : parent_(parent) {}

  const Value* find(const std::string& name) const {
    auto it = vars_.find(name);
    if (it != vars_.end()) {
      return &it->second;
    }
    return parent_ != nullptr ? parent_->find(name) : nullptr;
  }
  const Value* find_local(const std::string& name) const {
    auto it = vars_.find(name);
    return it == vars_.end() ? nullptr : &it->second;
  }
  void set(const std::string& name, Value v, SourceSpan where = {}) {
    vars_[name] = std::move(v);
    if (where.valid() && !spans_.contains(name)) {
      spans_[name] = where;
    }
  }
  //! Where `name` was first bound in this level (invalid if unknown).
  SourceSpan defined_at(const std::string& name) const {
    auto it = spans_.find(name);
    return it == spans_.end() ? SourceSpan{} : it->second;
  }
  //! Every visible name, for "did you mean" hints.
  std::vector<std::string> names() const {
    std::vector<std::string> out = parent_ != nullptr ? parent_->names() : std::vector<std::string>{};
    for (const auto& [name, v] : vars_) {
      out.push_back(name);
    }
    return out;
  }
  std::vector<std::string> local_names() const {
    std::vector<std::string> out;
    for (const auto& [name, v] : vars_) {
      out.push_back(name);
    }
    return out;
  }

 private:
  const Scope* parent_;
  std::map<std::string, Value> vars_;
  std::map<std::string, SourceSpan> spans_;
};

//! A loaded module: its syntax tree and the names it defines (functions, layers, imports).
struct ModuleScope {
  std::string name;  //!< as imported ("nn"); the model file's own module is "main"
  std::string path;  //!< as shown in messages ("stdlib/nn.ipu")
  ast::Module ast;
  Scope scope;

  explicit ModuleScope(const Scope* builtins) : scope(builtins) {}
};

}  // namespace iputrain::frontend
