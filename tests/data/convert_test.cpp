// core/data/convert: the one conversion of stored values to input dtypes.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

#include "core/data/convert.hpp"
#include "error_text.hpp"

namespace iputrain {
namespace {

using data::StoredType;

TEST_CASE("convert: refusals are decided by the pair of types") {
  CHECK_FALSE(data::conversion_refusal(StoredType::I64, DType::F32));
  CHECK_FALSE(data::conversion_refusal(StoredType::U8, DType::Bool));
  CHECK_FALSE(data::conversion_refusal(StoredType::Bool, DType::I32));
  CHECK_FALSE(data::conversion_refusal(StoredType::F64, DType::BF16));
  CHECK(data::conversion_refusal(StoredType::F32, DType::I32));
  CHECK(data::conversion_refusal(StoredType::F16, DType::Bool));
  CHECK(data::conversion_refusal(StoredType::I32, DType::Bool));
  auto e = test::error_of([] { data::check_conversion(StoredType::F64, DType::I32, "f.npy", "label"); });
  CHECK(e.message ==
        "`f.npy` stores f64 values but the model's input `label` is i32: f64 values would have to be "
        "truncated to i32");
}

TEST_CASE("convert: f64 rounds to f32, f16 and bf16 to nearest, integers are exact") {
  const double d[4] = {0.1, 1.0 / 3.0, 65504.0, -2.5};
  float f[4];
  data::convert_values(d, StoredType::F64, f, DType::F32, 4, "t");
  CHECK(f[0] == 0.1f);
  CHECK(f[1] == static_cast<float>(1.0 / 3.0));
  uint16_t h[4];
  data::convert_values(d, StoredType::F64, h, DType::F16, 4, "t");
  CHECK(h[2] == 0x7bff);  // 65504, f16's largest
  CHECK(h[3] == 0xc100);  // -2.5
  CHECK(h[0] == 0x2e66);  // 0.1 rounds to 0.0999755859375
  data::convert_values(d, StoredType::F64, h, DType::BF16, 4, "t");
  CHECK(h[3] == 0xc020);
  const int64_t big[2] = {16777217, -7};
  data::convert_values(big, StoredType::I64, f, DType::F32, 2, "t");
  CHECK(f[1] == -7.0f);
  int32_t i[2];
  data::convert_values(big, StoredType::I64, i, DType::I32, 2, "t");
  CHECK(i[0] == 16777217);
  const uint8_t u[3] = {0, 2, 255};
  uint8_t b[3];
  data::convert_values(u, StoredType::U8, b, DType::Bool, 3, "t");
  CHECK(b[1] == 1);
  CHECK(b[0] == 0);
  uint16_t sub[1];
  const float tiny[1] = {std::ldexp(1.0f, -24)};
  data::convert_values(tiny, StoredType::F32, sub, DType::F16, 1, "t");
  CHECK(sub[0] == 1);  // the smallest subnormal
}

TEST_CASE("convert: store_number wants whole numbers for integers and 0 or 1 for bool") {
  int32_t i = 0;
  CHECK(data::store_number(12, DType::I32, &i));
  CHECK(i == 12);
  CHECK_FALSE(data::store_number(1.5, DType::I32, &i));
  CHECK_FALSE(data::store_number(3e10, DType::I32, &i));
  uint8_t b = 0;
  CHECK_FALSE(data::store_number(2, DType::Bool, &b));
  CHECK(data::store_number(1, DType::Bool, &b));
  CHECK(b == 1);
}

}  // namespace
}  // namespace iputrain
