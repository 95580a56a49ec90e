// The per-channel scaled Storage, the permuted view and the packed tensor of derived weights.
#include "emit/derived_tensors.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/error.h"
#include "emit/packed_4bit.h"
#include "emit/permuted_copy.h"
#include "emit/scaled_storage.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

namespace {

// Per-channel vectors read in memory are at most this many elements (BatchNorm statistics and
// biases are one value per channel).
constexpr int64_t kMaxReadElements = int64_t{1} << 20;
// Elements read at a time when a whole tensor is reduced.
constexpr uint64_t kReduceTileElements = uint64_t{1} << 18;

// Whether emit can write the view at the speed of a plain copy (emit/permuted_copy.h): a dense
// permutation that fits one block or whose output runs are long enough. A view that is invalid is left for emit to
// report on the source weight itself.
bool permutes_at_copy_speed(const archive::TensorData& view) {
  try {
    const TensorLayout layout = make_layout(view, view.name);
    return layout.contiguous || layout.nbytes <= PermuteSizes{}.window_bytes ||
           permuted_run_bytes(layout) >= kMinPermutedRunBytes;
  } catch (const Error&) {
    return false;
  }
}

std::optional<archive::TensorData> derive(const archive::TensorData& source, const model::DerivedWeight::Scaled& how) {
  if (source.dtype != ir::DType::kFloat32 || !source.is_contiguous() || how.factors.empty() || how.inner <= 0)
    return std::nullopt;
  archive::TensorData out;
  out.name = source.name + (how.offset == 0 ? " (scaled per channel by folding)" : " (shifted by a folded Add)");
  out.dtype = source.dtype;
  out.sizes = source.sizes;
  out.strides.assign(out.sizes.size(), 1);  // row-major
  for (size_t d = out.sizes.size(); d-- > 1;) out.strides[d - 1] = out.strides[d] * out.sizes[d];
  out.storage = std::make_shared<ScaledStorage>(source, how.factors, how.inner, how.offset);
  return out;
}

std::optional<archive::TensorData> derive(const archive::TensorData& source, const model::DerivedWeight::Permuted& how) {
  const std::vector<int64_t>& perm = how.perm;
  if (!source.storage || perm.size() != source.sizes.size()) return std::nullopt;
  std::vector<int64_t> strides = source.strides;
  if (strides.empty()) {  // none recorded: row-major
    strides.assign(source.sizes.size(), 1);
    for (size_t d = strides.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<int64_t>(source.sizes[d], 1);
  }
  if (strides.size() != source.sizes.size()) return std::nullopt;
  archive::TensorData view = source;  // same storage: no bytes are copied or held here
  view.name = source.name + " (transposed)";
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t from = perm[i];
    if (from < 0 || from >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(from)]) return std::nullopt;
    seen[static_cast<size_t>(from)] = true;
    view.sizes[i] = source.sizes[static_cast<size_t>(from)];
  }
  view.strides.resize(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) view.strides[i] = strides[static_cast<size_t>(perm[i])];
  if (!permutes_at_copy_speed(view)) return std::nullopt;  // the Transpose stays a node
  return view;
}

std::optional<archive::TensorData> derive(const archive::TensorData& source, const model::DerivedWeight::Packed4Bit& how) {
  return packed_4bit(source, FourBitPacking{how.is_signed, how.offset_to_unsigned, how.row, how.dims});
}

// The key a derived weight is bound under: no FQN has a space.
std::string key_of(const model::DerivedWeight& weight) {
  const char* prefix = std::visit(
      [](const auto& how) {
        using How = std::decay_t<decltype(how)>;
        if constexpr (std::is_same_v<How, model::DerivedWeight::Scaled>) return how.offset == 0 ? "scaled " : "shifted ";
        else if constexpr (std::is_same_v<How, model::DerivedWeight::Permuted>) return "transposed ";
        else return "packed-4bit ";
      },
      weight.how);
  return prefix + weight.name;
}

}  // namespace

std::optional<std::vector<float>> read_small_floats(const archive::TensorData& tensor) {
  if (tensor.dtype != ir::DType::kFloat32 || tensor.numel() > kMaxReadElements) return std::nullopt;
  const std::vector<uint8_t> bytes = tensor.read_contiguous();
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

std::optional<std::vector<int64_t>> read_small_int64s(const archive::TensorData& tensor) {
  if (tensor.dtype != ir::DType::kInt64 || tensor.numel() > kMaxReadElements) return std::nullopt;
  const std::vector<uint8_t> bytes = tensor.read_contiguous();
  std::vector<int64_t> v(bytes.size() / sizeof(int64_t));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(int64_t));
  return v;
}

std::optional<std::vector<double>> channel_sums_of_squares(const archive::TensorData& tensor, int64_t channels,
                                                           int64_t inner) {
  if (tensor.dtype != ir::DType::kFloat32 || !tensor.storage || !tensor.is_contiguous() || channels <= 0 || inner <= 0)
    return std::nullopt;
  const auto count = static_cast<uint64_t>(tensor.numel());
  if (tensor.storage->size() < tensor.storage_bytes_needed()) return std::nullopt;  // emit reports it
  const uint64_t base = static_cast<uint64_t>(tensor.storage_offset) * sizeof(float);
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  std::vector<float> tile(static_cast<size_t>(std::min(count, kReduceTileElements)));
  const auto run = static_cast<uint64_t>(inner);
  for (uint64_t done = 0; done < count;) {
    const uint64_t n = std::min<uint64_t>(tile.size(), count - done);
    tensor.storage->read(base + done * sizeof(float), n * sizeof(float), tile.data());
    for (uint64_t i = 0; i < n; ++i) {
      const double v = tile[static_cast<size_t>(i)];
      sums[static_cast<size_t>(((done + i) / run) % sums.size())] += v * v;
    }
    done += n;
  }
  return sums;
}

const archive::TensorData* DerivedTensors::source_of(const model::WeightBinding& source) const {
  if (source.fqn.empty()) {  // derived before
    auto key = key_of_.find(source.initializer);
    return key == key_of_.end() ? nullptr : &tensors_.at(key->second);
  }
  // Where the binding says first; the other map is a fallback, as write_model looks.
  const auto& first = source.is_constant ? constants_ : weights_;
  const auto& second = source.is_constant ? weights_ : constants_;
  auto found = first.find(source.fqn);
  if (found != first.end()) return &found->second;
  found = second.find(source.fqn);
  return found != second.end() ? &found->second : nullptr;
}

std::optional<archive::TensorData> DerivedTensors::make(const model::DerivedWeight& weight) const {
  const archive::TensorData* source = source_of(weight.source);
  if (!source) return std::nullopt;
  return std::visit([source](const auto& how) { return derive(*source, how); }, weight.how);
}

bool DerivedTensors::add(const model::DerivedWeight& weight) {
  std::optional<archive::TensorData> tensor = make(weight);
  if (!tensor) return false;
  std::string key = key_of(weight);
  tensors_[key] = std::move(*tensor);
  key_of_[weight.name] = key;
  bindings_.push_back(model::WeightBinding{weight.name, std::move(key), false});
  return true;
}

}  // namespace pt2onnx::emit
