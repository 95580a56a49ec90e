// Layout checks and the chunked row-major gather.
#include "emit/tensor_layout.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "common/error.h"

namespace pt2onnx::emit {

namespace {

// Strided views whose touched span fits this are read with one Storage::read and gathered in
// memory; larger ones are read run by run, so memory stays bounded either way.
constexpr uint64_t kSpanBufferLimit = uint64_t{64} << 20;

using Describe = std::function<std::string()>;

[[noreturn]] void fail_layout(const Describe& what, const archive::TensorData& tensor, const std::string& problem) {
  std::string where = tensor.storage ? " (" + describe_storage(*tensor.storage) + ")" : "";
  fail(ErrorCode::kArchive, what() + where + ": " + problem);
}

uint64_t checked_mul(uint64_t a, uint64_t b, const Describe& what, const archive::TensorData& tensor) {
  uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) fail_layout(what, tensor, "tensor size overflows 64 bits");
  return out;
}

uint64_t checked_add(uint64_t a, uint64_t b, const Describe& what, const archive::TensorData& tensor) {
  uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) fail_layout(what, tensor, "tensor extent overflows 64 bits");
  return out;
}

}  // namespace

std::string format_dims(const std::vector<int64_t>& dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

std::string describe_storage(const archive::Storage& storage) {
  std::string entry = storage.entry_name();
  return entry.empty() ? std::string("its storage") : "archive entry '" + entry + "'";
}

TensorLayout make_layout(const archive::TensorData& tensor, const std::string& what) {
  return make_layout(tensor, [&what] { return what; });
}

TensorLayout make_layout(const archive::TensorData& tensor, const Describe& what) {
  if (!tensor.storage) fail_layout(what, tensor, "has no storage");
  TensorLayout layout;
  layout.element_size = ir::dtype_size(tensor.dtype);
  if (layout.element_size <= 0)
    fail_layout(what, tensor, "unknown element type " + std::string(ir::dtype_name(tensor.dtype)));
  layout.sizes = tensor.sizes;
  layout.storage_offset = tensor.storage_offset;
  if (tensor.storage_offset < 0) fail_layout(what, tensor, "negative storage offset");
  for (int64_t size : tensor.sizes)
    if (size < 0) fail_layout(what, tensor, "negative size in " + format_dims(tensor.sizes));

  if (tensor.strides.empty() && !tensor.sizes.empty()) {
    // No strides recorded: the archive means a dense row-major tensor.
    layout.strides.assign(tensor.sizes.size(), 0);
    uint64_t stride = 1;
    for (size_t i = tensor.sizes.size(); i-- > 0;) {
      if (stride > static_cast<uint64_t>(INT64_MAX)) fail_layout(what, tensor, "tensor size overflows 64 bits");
      layout.strides[i] = static_cast<int64_t>(stride);
      stride = checked_mul(stride, static_cast<uint64_t>(std::max<int64_t>(tensor.sizes[i], 1)), what, tensor);
    }
  } else {
    layout.strides = tensor.strides;
  }
  if (layout.strides.size() != layout.sizes.size())
    fail_layout(what, tensor, "sizes " + format_dims(tensor.sizes) + " and strides " +
                                  format_dims(tensor.strides) + " differ in rank");
  for (int64_t stride : layout.strides)
    if (stride < 0) fail_layout(what, tensor, "negative stride in " + format_dims(layout.strides));

  layout.numel = 1;
  for (int64_t size : layout.sizes)
    layout.numel = checked_mul(layout.numel, static_cast<uint64_t>(size), what, tensor);
  layout.nbytes = checked_mul(layout.numel, static_cast<uint64_t>(layout.element_size), what, tensor);

  layout.contiguous = true;
  uint64_t expected_stride = 1;
  for (size_t i = layout.sizes.size(); i-- > 0;) {
    if (layout.sizes[i] == 1) continue;
    if (static_cast<uint64_t>(layout.strides[i]) != expected_stride) layout.contiguous = false;
    expected_stride *= static_cast<uint64_t>(layout.sizes[i]);  // bounded by numel, no overflow
  }
  if (layout.numel == 0) {
    layout.contiguous = true;
    return layout;
  }

  // Last element touched = storage_offset + sum((size - 1) * stride).
  uint64_t last = static_cast<uint64_t>(layout.storage_offset);
  for (size_t i = 0; i < layout.sizes.size(); ++i)
    last = checked_add(last, checked_mul(static_cast<uint64_t>(layout.sizes[i] - 1),
                                         static_cast<uint64_t>(layout.strides[i]), what, tensor),
                       what, tensor);
  const auto element_size = static_cast<uint64_t>(layout.element_size);
  layout.span_begin = checked_mul(static_cast<uint64_t>(layout.storage_offset), element_size, what, tensor);
  layout.span_end = checked_mul(checked_add(last, 1, what, tensor), element_size, what, tensor);

  const uint64_t storage_size = tensor.storage->size();
  if (layout.span_end > storage_size)
    fail_layout(what, tensor,
                "storage holds " + std::to_string(storage_size) + " bytes but the tensor (" +
                    std::string(ir::dtype_name(tensor.dtype)) + format_dims(layout.sizes) + ", strides " +
                    format_dims(layout.strides) + ", offset " + std::to_string(layout.storage_offset) +
                    ") needs bytes [" + std::to_string(layout.span_begin) + ", " +
                    std::to_string(layout.span_end) + ")");
  return layout;
}

void gather_tensor(const TensorLayout& layout, const archive::Storage& storage, size_t chunk_bytes,
                   const ChunkSink& sink) {
  if (layout.numel == 0) return;
  chunk_bytes = std::max<size_t>(chunk_bytes, 1);

  if (layout.contiguous) {
    std::vector<uint8_t> buffer(std::min<uint64_t>(chunk_bytes, layout.nbytes));
    for (uint64_t done = 0; done < layout.nbytes;) {
      const uint64_t n = std::min<uint64_t>(buffer.size(), layout.nbytes - done);
      storage.read(layout.span_begin + done, n, buffer.data());
      sink(buffer.data(), static_cast<size_t>(n));
      done += n;
    }
    return;
  }

  // Fold the innermost dims that are laid out densely into one run of contiguous elements; the
  // remaining outer dims are walked with an odometer.
  const auto element_size = static_cast<uint64_t>(layout.element_size);
  size_t outer_rank = layout.sizes.size();
  uint64_t run_elements = 1;
  while (outer_rank > 0 && (layout.sizes[outer_rank - 1] == 1 ||
                            static_cast<uint64_t>(layout.strides[outer_rank - 1]) == run_elements)) {
    run_elements *= static_cast<uint64_t>(layout.sizes[outer_rank - 1]);
    --outer_rank;
  }
  const uint64_t run_bytes = run_elements * element_size;

  // Source of runs: the span read once, or the storage itself.
  std::vector<uint8_t> span;
  const uint64_t span_bytes = layout.span_end - layout.span_begin;
  if (span_bytes <= kSpanBufferLimit) {
    span.resize(span_bytes);
    storage.read(layout.span_begin, span_bytes, span.data());
  }
  auto read_bytes = [&](uint64_t storage_byte, uint64_t n, uint8_t* dst) {
    if (!span.empty())
      std::memcpy(dst, span.data() + (storage_byte - layout.span_begin), n);
    else
      storage.read(storage_byte, n, dst);
  };

  std::vector<uint8_t> out(std::min<uint64_t>(chunk_bytes, layout.nbytes));
  size_t filled = 0;
  std::vector<int64_t> index(outer_rank, 0);
  uint64_t element = static_cast<uint64_t>(layout.storage_offset);  // of the current run
  for (uint64_t produced = 0; produced < layout.nbytes; produced += run_bytes) {
    for (uint64_t copied = 0; copied < run_bytes;) {
      const uint64_t n = std::min<uint64_t>(run_bytes - copied, out.size() - filled);
      read_bytes(element * element_size + copied, n, out.data() + filled);
      filled += n;
      copied += n;
      if (filled == out.size()) {
        sink(out.data(), filled);
        filled = 0;
      }
    }
    // Advance the odometer over the outer dims.
    for (size_t d = outer_rank; d-- > 0;) {
      element += static_cast<uint64_t>(layout.strides[d]);
      if (++index[d] < layout.sizes[d]) break;
      element -= static_cast<uint64_t>(layout.strides[d]) * static_cast<uint64_t>(layout.sizes[d]);
      index[d] = 0;
    }
  }
  if (filled > 0) sink(out.data(), filled);
}

}  // namespace pt2onnx::emit
