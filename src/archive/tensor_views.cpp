// TensorData helpers: element counts, the storage span a view addresses, and gathering a
// strided view into row-major bytes.
#include <cstdint>
#include <cstring>

#include "archive/archive.h"
#include "common/error.h"

namespace pt2onnx::archive {

namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

[[noreturn]] void fail_view(const TensorData& tensor, const std::string& what) {
  fail(ErrorCode::kArchive, "'" + tensor.name + "' (" + std::string(ir::dtype_name(tensor.dtype)) +
                                " sizes " + dims_text(tensor.sizes) + " strides " +
                                dims_text(tensor.strides) + " offset " +
                                std::to_string(tensor.storage_offset) + "): " + what);
}

}  // namespace

int64_t TensorData::numel() const {
  uint64_t count = 1;
  for (int64_t size : sizes) {
    if (size < 0) fail_view(*this, "negative size");
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(size), &count) ||
        count > static_cast<uint64_t>(INT64_MAX)) {
      fail_view(*this, "element count overflows 64 bits");
    }
  }
  return static_cast<int64_t>(count);
}

int64_t TensorData::nbytes() const { return numel() * ir::dtype_size(dtype); }

bool TensorData::is_contiguous() const {
  if (numel() == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;  // any stride works for a dimension of one
    if (i >= strides.size() || strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

uint64_t TensorData::storage_bytes_needed() const {
  const int64_t element_size = ir::dtype_size(dtype);
  if (element_size <= 0) fail_view(*this, "unknown element type");
  if (sizes.size() != strides.size()) fail_view(*this, "sizes and strides differ in rank");
  if (storage_offset < 0) fail_view(*this, "negative storage offset");
  uint64_t count = 1;
  uint64_t last = 0;  // index of the last addressed element, relative to the storage offset
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0) fail_view(*this, "negative size");
    if (strides[i] < 0) fail_view(*this, "negative stride");
    uint64_t extent = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(sizes[i]), count, &count) ||
        (sizes[i] > 0 && (__builtin_mul_overflow(static_cast<uint64_t>(sizes[i] - 1),
                                                 static_cast<uint64_t>(strides[i]), &extent) ||
                          __builtin_add_overflow(last, extent, &last)))) {
      fail_view(*this, "size overflows 64 bits");
    }
  }
  uint64_t nbytes_total = 0;
  if (__builtin_mul_overflow(count, static_cast<uint64_t>(element_size), &nbytes_total) ||
      nbytes_total > static_cast<uint64_t>(INT64_MAX)) {
    fail_view(*this, "size overflows 64 bits");
  }
  if (count == 0) return 0;
  uint64_t end = 0;
  if (__builtin_add_overflow(static_cast<uint64_t>(storage_offset), last + 1, &end) ||
      __builtin_mul_overflow(end, static_cast<uint64_t>(element_size), &end)) {
    fail_view(*this, "storage span overflows 64 bits");
  }
  return end;
}

std::vector<uint8_t> TensorData::read_contiguous() const {
  const uint64_t needed = storage_bytes_needed();
  if (needed == 0) return {};
  if (!storage) fail_view(*this, "has no storage");
  if (storage->size() < needed) {
    const std::string entry = storage->entry_name();
    fail_view(*this, "needs " + std::to_string(needed) + " bytes of storage, but " +
                         (entry.empty() ? std::string("its storage") : "'" + entry + "'") +
                         " has " + std::to_string(storage->size()));
  }
  const auto element_size = static_cast<uint64_t>(ir::dtype_size(dtype));
  const uint64_t begin = static_cast<uint64_t>(storage_offset) * element_size;
  const auto total = static_cast<uint64_t>(nbytes());
  std::vector<uint8_t> out(total);
  if (is_contiguous()) {
    storage->read(begin, total, out.data());
    return out;
  }
  // Read the addressed span once, then walk the indices in row-major order.
  std::vector<uint8_t> span(needed - begin);
  storage->read(begin, span.size(), span.data());
  std::vector<int64_t> index(sizes.size(), 0);
  uint64_t source = 0;  // element offset from storage_offset
  for (uint64_t element = 0; element * element_size < total; ++element) {
    std::memcpy(out.data() + element * element_size, span.data() + source * element_size,
                element_size);
    for (size_t d = sizes.size(); d-- > 0;) {
      source += static_cast<uint64_t>(strides[d]);
      if (++index[d] < sizes[d]) break;
      source -= static_cast<uint64_t>(strides[d]) * static_cast<uint64_t>(sizes[d]);
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace pt2onnx::archive
