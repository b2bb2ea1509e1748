#include "core/data/zip_archive.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>

#include "iputrain/error.hpp"

namespace iputrain::data {

namespace {

const char* kZipHint = "write the archive with numpy.savez or numpy.savez_compressed; it may be damaged or incomplete";

[[noreturn]] void bad_zip(const std::string& file, const std::string& what) {
  throw Error(ErrorKind::Data, fmt::format("`{}` is not a valid zip archive: {}", file, what), {}, kZipHint);
}

uint64_t le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) {
    v = (v << 8) | p[i];
  }
  return v;
}

// Applies a zip64 extended-information field (id 1) to the sizes and offset that overflowed.
void apply_zip64(const uint8_t* extra, size_t len, ZipMember& m, const std::string& file) {
  size_t at = 0;
  while (at + 4 <= len) {
    const uint64_t id = le(extra + at, 2);
    const uint64_t n = le(extra + at + 2, 2);
    if (at + 4 + n > len) {
      bad_zip(file, fmt::format("member `{}` has a damaged extra field", m.name));
    }
    if (id == 1) {
      size_t p = at + 4;
      for (uint64_t* v : {&m.size, &m.compressed, &m.local_offset}) {
        if (*v == 0xffffffffu) {
          if (p + 8 > at + 4 + n) {
            bad_zip(file, fmt::format("member `{}` has a short zip64 field", m.name));
          }
          *v = le(extra + p, 8);
          p += 8;
        }
      }
      return;
    }
    at += 4 + n;
  }
}

}  // namespace

std::vector<ZipMember> zip_members(const uint8_t* data, size_t size, const std::string& file) {
  // The end-of-central-directory record is the last 22 bytes plus a comment of up to 64 KiB.
  if (size < 22) {
    bad_zip(file, fmt::format("it has only {} bytes", size));
  }
  size_t eocd = std::numeric_limits<size_t>::max();
  const size_t lowest = size > 22 + 65535 ? size - 22 - 65535 : 0;
  for (size_t p = size - 22 + 1; p-- > lowest;) {
    if (le(data + p, 4) == 0x06054b50u) {
      eocd = p;
      break;
    }
  }
  if (eocd == std::numeric_limits<size_t>::max()) {
    bad_zip(file, "it has no end-of-central-directory record (truncated, or not a zip file)");
  }
  uint64_t count = le(data + eocd + 10, 2);
  uint64_t cd_size = le(data + eocd + 12, 4);
  uint64_t cd_offset = le(data + eocd + 16, 4);
  if ((count == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) && eocd >= 20 &&
      le(data + eocd - 20, 4) == 0x07064b50u) {
    const uint64_t z = le(data + eocd - 20 + 8, 8);
    if (z > size - 56 || le(data + z, 4) != 0x06064b50u) {
      bad_zip(file, "its zip64 end-of-central-directory record is missing");
    }
    count = le(data + z + 32, 8);
    cd_size = le(data + z + 40, 8);
    cd_offset = le(data + z + 48, 8);
  }
  if (cd_offset > size || cd_size > size - cd_offset) {
    bad_zip(file, fmt::format("its central directory (offset {}, {} bytes) lies outside the file of {} bytes",
                              cd_offset, cd_size, size));
  }
  std::vector<ZipMember> out;
  size_t at = cd_offset;
  const size_t end = cd_offset + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (at + 46 > end || le(data + at, 4) != 0x02014b50u) {
      bad_zip(file, fmt::format("its central directory entry {} is damaged", i));
    }
    ZipMember m;
    const uint64_t flags = le(data + at + 8, 2);
    m.method = static_cast<uint16_t>(le(data + at + 10, 2));
    m.crc = static_cast<uint32_t>(le(data + at + 16, 4));
    m.compressed = le(data + at + 20, 4);
    m.size = le(data + at + 24, 4);
    const size_t name_len = le(data + at + 28, 2);
    const size_t extra_len = le(data + at + 30, 2);
    const size_t comment_len = le(data + at + 32, 2);
    m.local_offset = le(data + at + 42, 4);
    if (at + 46 + name_len + extra_len + comment_len > end) {
      bad_zip(file, fmt::format("its central directory entry {} runs past the directory", i));
    }
    m.name.assign(reinterpret_cast<const char*>(data + at + 46), name_len);
    apply_zip64(data + at + 46 + name_len, extra_len, m, file);
    if ((flags & 1u) != 0) {
      throw Error(ErrorKind::Data, fmt::format("`{}`: member `{}` is encrypted", file, m.name), {},
                  "iputrain reads unencrypted archives only");
    }
    out.push_back(std::move(m));
    at += 46 + name_len + extra_len + comment_len;
  }
  return out;
}

const uint8_t* zip_extract(const uint8_t* data, size_t size, const ZipMember& m, const std::string& file,
                           std::vector<uint8_t>& owned) {
  if (m.local_offset > size || size - m.local_offset < 30 || le(data + m.local_offset, 4) != 0x04034b50u) {
    bad_zip(file, fmt::format("member `{}` has no local header at offset {}", m.name, m.local_offset));
  }
  const size_t header = 30 + le(data + m.local_offset + 26, 2) + le(data + m.local_offset + 28, 2);
  const uint64_t begin = m.local_offset + header;
  if (begin > size || m.compressed > size - begin) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}` is truncated: member `{}` needs {} bytes at offset {} of a file of {} bytes", file,
                            m.name, m.compressed, begin, size),
                {}, "the archive may be incomplete; write it again");
  }
  const uint8_t* src = data + begin;
  if (m.method == 0) {
    if (m.compressed != m.size) {
      bad_zip(file, fmt::format("stored member `{}` has different packed and unpacked sizes", m.name));
    }
    return src;
  }
  if (m.method != 8) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}`: member `{}` is compressed with method {}, not stored (0) or deflated (8)", file,
                            m.name, m.method),
                {}, "write the archive with numpy.savez or numpy.savez_compressed");
  }
  // Deflate cannot expand data more than about 1032 times: a larger size is a damaged directory.
  if (m.size / 1032 > m.compressed + 1) {
    bad_zip(file, fmt::format("member `{}` claims {} bytes from {} compressed", m.name, m.size, m.compressed));
  }
  owned.assign(m.size, 0);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
    throw Error(ErrorKind::Internal, "zlib inflateInit2 failed");
  }
  // zlib counts in uInt; feed and drain in pieces so members above 4 GiB inflate too.
  uint64_t in_left = m.compressed;
  uint64_t out_left = m.size;
  z.next_in = const_cast<Bytef*>(src);
  z.next_out = owned.data();
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (z.avail_in == 0 && in_left > 0) {
      z.avail_in = static_cast<uInt>(std::min<uint64_t>(in_left, 1u << 30));
      in_left -= z.avail_in;
    }
    if (z.avail_out == 0 && out_left > 0) {
      z.avail_out = static_cast<uInt>(std::min<uint64_t>(out_left, 1u << 30));
      out_left -= z.avail_out;
    }
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_BUF_ERROR && z.avail_out == 0 && out_left == 0) {
      break;  // more data than the directory promised
    }
  }
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != m.size) {
    throw Error(ErrorKind::Data,
                fmt::format("`{}`: member `{}` does not inflate to its {} bytes ({})", file, m.name, m.size,
                            rc == Z_DATA_ERROR   ? "corrupt data"
                            : rc == Z_STREAM_END ? "wrong size"
                                                 : "truncated"),
                {}, "the archive may be damaged or incomplete; write it again");
  }
  if (crc32_z(0, owned.data(), owned.size()) != m.crc) {
    throw Error(ErrorKind::Data, fmt::format("`{}`: member `{}` fails its CRC-32 check", file, m.name), {},
                "the archive is damaged; write it again");
  }
  return owned.data();
}

}  // namespace iputrain::data
