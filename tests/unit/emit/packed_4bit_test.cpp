// Packed 4-bit weights: ONNX's INT4/UINT4 layout (element 2i in the low nibble), any offset and
// length as emit's chunked copies ask, a refusal naming the weight for a value out of range.
#include <doctest/doctest.h>

#include <cstring>

#include "archive/storages.h"
#include "common/error.h"
#include "emit/packed_4bit.h"

namespace pt2onnx::emit {
namespace {

archive::TensorData byte_tensor(ir::DType dtype, std::vector<uint8_t> bytes, std::vector<int64_t> sizes,
                                int64_t storage_offset = 0) {
  archive::TensorData t;
  t.name = "fc.weight";
  t.dtype = dtype;
  t.sizes = std::move(sizes);
  t.strides.assign(t.sizes.size(), 1);
  for (size_t d = t.sizes.size(); d-- > 1;) t.strides[d - 1] = t.strides[d] * t.sizes[d];
  t.storage_offset = storage_offset;
  t.storage = std::make_shared<archive::MemoryStorage>(std::move(bytes), archive::StorageLabel{"a.pt2", "w0"});
  return t;
}

std::vector<uint8_t> read_all(const archive::TensorData& t) {
  std::vector<uint8_t> out(t.storage->size());
  t.storage->read(0, out.size(), out.data());
  return out;
}

TEST_CASE("int4 values pack two per byte, low nibble first; an odd last element gets a zero high nibble") {
  // storage offset 1: the tensor starts one byte into its storage
  const std::vector<int8_t> values = {99, -8, 7, -1, 0, 3, -5};
  std::vector<uint8_t> bytes(values.size());
  std::memcpy(bytes.data(), values.data(), bytes.size());
  const archive::TensorData source = byte_tensor(ir::DType::kInt8, bytes, {2, 3}, 1);
  const std::optional<archive::TensorData> packed = packed_4bit(source, {true, false, 0, {}});
  REQUIRE(packed.has_value());
  CHECK(packed->dtype == ir::DType::kUInt8);
  CHECK(packed->sizes == std::vector<int64_t>{3});
  CHECK(read_all(*packed) == std::vector<uint8_t>{0x78, 0x0F, 0xB3});  // (-8, 7), (-1, 0), (3, -5)
  std::vector<uint8_t> piece(1);
  packed->storage->read(2, 1, piece.data());  // the middle of the tensor alone
  CHECK(piece[0] == 0xB3);
  CHECK_THROWS(packed->storage->read(2, 2, piece.data()));
  CHECK(is_packed_4bit_of(*packed, ir::kOnnxInt4, {2, 3}));
  CHECK_FALSE(is_packed_4bit_of(*packed, ir::kOnnxInt4, {6, 1, 2}));  // another element count
  CHECK_FALSE(is_packed_4bit_of(source, ir::kOnnxInt4, {2, 3}));       // not packed
  CHECK_FALSE(is_packed_4bit_of(*packed, 3, {2, 3}));                        // declared INT8
}

TEST_CASE("uint4 packs 0..15; other dtypes and strided views are declined") {
  const archive::TensorData source = byte_tensor(ir::DType::kUInt8, {1, 15, 0, 9}, {4});
  CHECK(read_all(*packed_4bit(source, {false, false, 0, {}})) == std::vector<uint8_t>{0xF1, 0x90});
  CHECK_FALSE(packed_4bit(source, {true, false, 0, {}}).has_value());  // uint8 is not int4's storage
  archive::TensorData strided = byte_tensor(ir::DType::kInt8, {1, 2, 3, 4}, {2});
  strided.strides = {2};
  CHECK_FALSE(packed_4bit(strided, {true, false, 0, {}}).has_value());
}

TEST_CASE("a value outside the 4-bit range stops the write, naming the weight and the element") {
  const archive::TensorData source = byte_tensor(ir::DType::kInt8, {1, 2, 8, 3}, {4});
  const archive::TensorData packed = *packed_4bit(source, {true, false, 0, {}});
  std::vector<uint8_t> out(2);
  try {
    packed.storage->read(0, 2, out.data());
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()).find("'fc.weight' holds 8 at element 2") != std::string::npos);
  }
}

TEST_CASE("MatMulNBits' layout: rows padded to whole bytes, signed values offset by 8") {
  // two rows of 3: (-8, 7, 1) and (0, -1, 2) -> +8: (0, 15, 9) and (8, 7, 10)
  const std::vector<int8_t> values = {-8, 7, 1, 0, -1, 2};
  std::vector<uint8_t> bytes(values.size());
  std::memcpy(bytes.data(), values.data(), bytes.size());
  const archive::TensorData source = byte_tensor(ir::DType::kInt8, bytes, {2, 3});
  const std::optional<archive::TensorData> packed = packed_4bit(source, {true, true, 3, {2, 2}});
  REQUIRE(packed.has_value());
  CHECK(packed->sizes == std::vector<int64_t>{2, 2});
  CHECK(read_all(*packed) == std::vector<uint8_t>{0xF0, 0x09, 0x78, 0x0A});
  std::vector<uint8_t> piece(2);
  packed->storage->read(1, 2, piece.data());  // across the row boundary
  CHECK(piece == std::vector<uint8_t>{0x09, 0x78});
  CHECK_FALSE(is_packed_4bit_of(*packed, ir::kOnnxInt4, {2, 3}));  // not ONNX's INT4 layout
  CHECK_FALSE(packed_4bit(source, {true, true, 4, {}}).has_value());       // a row that does not divide it
  CHECK_FALSE(packed_4bit(source, {true, true, 3, {5}}).has_value());      // dims of another byte count
}

}  // namespace
}  // namespace pt2onnx::emit
