// Loading model files and the modules they import.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/scope.hpp"

namespace iputrain::frontend {

//! All modules of one model load: the main file, its imports (transitively) and the builtins.
//! `import nn` looks for nn.ipu next to the importing file, then in the embedded standard library.
class Program {
 public:
  explicit Program(std::shared_ptr<SourceManager> sources);
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  //! Parses the main file (`text`, shown as `path`) and everything it imports, and binds their
  //! functions, layers and imports. Throws Error(Syntax/Semantic) without sources attached.
  const ModuleScope& load_main(const std::string& path, const std::string& text);

  const Scope& builtins() const { return builtins_; }
  //! Binds `name` among the builtins of every module (a compile-time value the caller sets).
  void define(const std::string& name, Value value) { builtins_.set(name, std::move(value)); }

 private:
  ModuleScope& load(const std::string& name, const std::string& path, const std::string& text);
  const ModuleScope& import(const ast::Import& imp, const ModuleScope& from);

  std::shared_ptr<SourceManager> sources_;
  Scope builtins_;
  std::vector<std::unique_ptr<ModuleScope>> modules_;
  std::vector<std::string> loading_;  //!< paths being loaded, to report import cycles
};

}  // namespace iputrain::frontend
