// The data-source table: every format a data spec "KIND:WHERE" may name (config `data.train`,
// `data.test`, `data.validation`; docs/data.md), one row each: its kind, what follows the colon, a
// one-line doc, an example and the function that opens it.
//
// Each format declares its row in its own file, core/data/X.cpp (its DataSourceDef kXSource), and
// core/data/source_list.hpp lists them: adding a format is that file and that line. open_dataset
// looks the kind up here; the unknown-kind error, its nearest-name hint, the hint listing the kinds
// and the `data.train` key's doc (`iputrain config docs`) are generated from it. The declarations
// are here, in core, so that the config schema may read the table; it is defined with the sources
// (core/data/dataset.cpp, the iputrain_data library the config links), as the optimizer table is
// (core/optim_table.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace iputrain {

namespace data {
class Dataset;
struct Field;
}  // namespace data

//! What open_dataset hands a format: the spec, its parts and the model's inputs.
struct DataSourceRequest {
  const std::string& spec;                 //!< "csv:train.csv", for messages
  const std::string& rest;                 //!< what follows the colon, unresolved
  const std::string& base_dir;             //!< relative paths resolve against it
  const std::vector<data::Field>& wanted;  //!< the model's inputs (may be empty: every field)
  uint64_t seed;

  //! `p` resolved against base_dir (unless absolute).
  std::string resolved(const std::string& p) const;
  //! `rest` (up to `end`) resolved against base_dir; throws Error(Data) "names no `what`" with
  //! data_source_hint() if it is empty.
  std::string path(std::string_view what, size_t end = std::string::npos) const;
};

using OpenDataSource = std::unique_ptr<data::Dataset> (*)(const DataSourceRequest&);

//! One format: its row of the table.
struct DataSourceDef {
  std::string_view kind;     //!< before the colon: "csv"
  std::string_view where;    //!< after it, as hints write it: "FILE"
  std::string_view doc;      //!< what it reads, one line (no full stop)
  std::string_view example;  //!< a spec a user might write: "csv:data/train.csv"
  OpenDataSource open;
  bool names_file = true;  //!< what follows the colon is a path a config resolves (Config::resolve_data_spec)
};

//! Every format, in the order of core/data/source_list.hpp.
const std::vector<const DataSourceDef*>& data_source_table();
//! The format of kind `kind` (exact spelling), or nullptr.
const DataSourceDef* find_data_source(std::string_view kind);
//! "\"idx:PREFIX\", \"npy:DIR\", … or \"synthetic:samples=N,classes=C\"".
std::string data_source_forms();
//! "data sources are " + data_source_forms() + " (docs/data.md)".
std::string data_source_hint();
//! Each form with its doc: "\"idx:PREFIX\" (an IDX image/label pair …), … or \"synthetic:…\" (…)".
std::string data_source_docs();

}  // namespace iputrain
