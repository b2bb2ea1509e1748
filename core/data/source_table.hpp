// iputrain — the rows of the data-source table (core/data_source_table.hpp): each format's file
// defines its DataSourceDef kXSource, declared here from core/data/source_list.hpp.
#pragma once

#include "core/data/dataset.hpp"
#include "core/data_source_table.hpp"

namespace iputrain::data {

#define IPUTRAIN_DATA_SOURCE(Name) extern const DataSourceDef k##Name##Source;
#include "core/data/source_list.hpp"
#undef IPUTRAIN_DATA_SOURCE

}  // namespace iputrain::data
