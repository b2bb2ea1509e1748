// iputrain — weight files in the safetensors format (https://huggingface.co/docs/safetensors):
// an 8-byte little-endian header length N, N bytes of JSON describing each tensor
// ({"dtype": "F32", "shape": [..], "data_offsets": [begin, end]} plus an optional "__metadata__"
// object of strings), then the raw little-endian tensor bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace iputrain::data {

//! One tensor of a weight file, its bytes in host (little-endian) order.
struct NamedTensor {
  std::string name;
  DType dtype = DType::F32;
  Shape shape;
  std::vector<uint8_t> bytes;
};

//! The contents of a weight file.
struct SafetensorsFile {
  std::vector<NamedTensor> tensors;             //!< sorted by name
  std::map<std::string, std::string> metadata;  //!< the "__metadata__" object, if any
};

//! "F32", "F16", "BF16", "I32", "BOOL".
const char* safetensors_dtype(DType t);

//! Writes `tensors` (stored sorted by name) and `metadata` to `path` atomically: a temporary file in
//! the same directory is written, flushed to disk and renamed over `path`. Throws Error(Io) if the
//! file cannot be written, Error(Internal) if a tensor's byte count does not match its shape or
//! names repeat.
//! `on_write`, if given, is called after each piece of the temporary file is written with the
//! bytes written so far and the file's total (checkpoint fault-injection tests stop there).
using WriteProgress = std::function<void(uint64_t written, uint64_t total)>;
void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {}, const WriteProgress& on_write = {});

//! One tensor of a safetensors header: its dtype as written ("F32", "U8", …), shape and byte range
//! [begin, end) relative to the start of the data section.
struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  Shape shape;
  uint64_t begin = 0;
  uint64_t end = 0;
};

//! A validated safetensors header.
struct SafetensorsIndex {
  std::vector<SafetensorsEntry> entries;        //!< sorted by name
  std::map<std::string, std::string> metadata;  //!< the "__metadata__" object, if any
  uint64_t data_start = 0;                      //!< file offset of the data section
};

//! Bytes per element of a safetensors dtype name (F64 … BOOL), 0 if unknown.
uint64_t safetensors_element_size(const std::string& dtype);

//! Parses and validates the header of the safetensors file held in `bytes` (`size` bytes; named
//! `path` in messages): every tensor's byte range matches its dtype and shape and the ranges cover
//! the data exactly. Accepts the dtypes F64, F32, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8
//! and BOOL. Throws Error(Data) naming the path and the problem.
SafetensorsIndex parse_safetensors_index(const uint8_t* bytes, uint64_t size, const std::string& path);

//! Reads and validates a weight file. Throws Error(Io) if it cannot be read and Error(Data) naming
//! the path and the problem if it is not a valid safetensors file of supported dtypes.
SafetensorsFile read_safetensors(const std::string& path);

}  // namespace iputrain::data
