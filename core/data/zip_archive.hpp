// iputrain — reading the members of a zip archive (what numpy.savez writes): the central
// directory (with its zip64 extensions), stored members in place and deflated members inflated by
// zlib. No encryption, no multi-disk archives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace iputrain::data {

//! One member of an archive, as its central directory describes it.
struct ZipMember {
  std::string name;
  uint16_t method = 0;  //!< 0 stored, 8 deflated
  uint32_t crc = 0;
  uint64_t compressed = 0;
  uint64_t size = 0;
  uint64_t local_offset = 0;
};

//! The members of the archive in `data` (`size` bytes, named `file` in messages). Throws
//! Error(Data) if it is not a zip archive or its directory is damaged.
std::vector<ZipMember> zip_members(const uint8_t* data, size_t size, const std::string& file);

//! The bytes of member `m`: a pointer into `data` for a stored member, else the inflated bytes
//! placed in `owned` (checked against the member's CRC-32). Throws Error(Data) naming the archive
//! and the member if they are damaged, encrypted or compressed by another method.
const uint8_t* zip_extract(const uint8_t* data, size_t size, const ZipMember& m, const std::string& file,
                           std::vector<uint8_t>& owned);

}  // namespace iputrain::data
