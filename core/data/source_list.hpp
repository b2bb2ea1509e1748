// The one list of data-source formats. data_source_table() is generated from it (dataset.cpp);
// each line is IPUTRAIN_DATA_SOURCE(Name): the definition kNameSource in its own file of this
// folder, which says everything else (the kind before the colon, what follows it, a one-line doc,
// an example and the function that opens it). Adding a format is that file and a line here (CMake
// globs core/data/*.cpp).
//
// The order is the one in which the unknown-kind hint, `iputrain config docs` (data.train) and
// docs/data.md list the kinds; nothing serialises a position (configs name the kind).
//
// Included several times with different definitions of IPUTRAIN_DATA_SOURCE: no include guard.

IPUTRAIN_DATA_SOURCE(Idx)
IPUTRAIN_DATA_SOURCE(Npy)
IPUTRAIN_DATA_SOURCE(Npz)
IPUTRAIN_DATA_SOURCE(Csv)
IPUTRAIN_DATA_SOURCE(Jsonl)
IPUTRAIN_DATA_SOURCE(Safetensors)
IPUTRAIN_DATA_SOURCE(Images)
IPUTRAIN_DATA_SOURCE(Text)
IPUTRAIN_DATA_SOURCE(Synthetic)
