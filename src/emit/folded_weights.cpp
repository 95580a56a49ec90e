// The per-channel scaled Storage and the WeightAccess that weight folding uses.
#include "emit/folded_weights.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "emit/packed_4bit.h"
#include "emit/permuted_copy.h"
#include "emit/tensor_layout.h"

namespace pt2onnx::emit {

namespace {

// Per-channel vectors read in memory are at most this many elements (BatchNorm statistics and
// biases are one value per channel).
constexpr int64_t kMaxReadElements = int64_t{1} << 20;

// float32 elements of a contiguous source tensor, element i times factors[(i / inner) % C].
class ScaledStorage final : public archive::Storage {
 public:
  ScaledStorage(archive::TensorData source, std::vector<double> factors, int64_t inner)
      : source_(std::move(source)), factors_(std::move(factors)), inner_(inner) {}

  uint64_t size() const override { return static_cast<uint64_t>(source_.numel()) * sizeof(float); }

  void read(uint64_t offset, uint64_t n, void* dst) const override {
    if (offset > size() || n > size() - offset)
      fail(ErrorCode::kArchive, "folded weight '" + source_.name + "': read past its end");
    if (n == 0) return;
    const uint64_t first = offset / sizeof(float);
    const uint64_t last = (offset + n + sizeof(float) - 1) / sizeof(float);  // exclusive
    const bool aligned = offset % sizeof(float) == 0 && n % sizeof(float) == 0;
    std::vector<float> scratch;
    float* values = static_cast<float*>(dst);
    if (!aligned) {
      scratch.resize(last - first);
      values = scratch.data();
    }
    const uint64_t base = static_cast<uint64_t>(source_.storage_offset) * sizeof(float);
    source_.storage->read(base + first * sizeof(float), (last - first) * sizeof(float), values);
    // Runs of `inner` elements share a factor; walk them without a division per element.
    const auto channels = static_cast<uint64_t>(factors_.size());
    const auto inner = static_cast<uint64_t>(inner_);
    uint64_t channel = (first / inner) % channels;
    uint64_t e = first;
    while (e < last) {
      const uint64_t run_end = std::min(last, (e / inner + 1) * inner);
      const double factor = factors_[channel];
      for (float* v = values + (e - first); v < values + (run_end - first); ++v)
        *v = static_cast<float>(static_cast<double>(*v) * factor);
      e = run_end;
      if (++channel == channels) channel = 0;
    }
    if (!aligned) std::memcpy(dst, reinterpret_cast<const uint8_t*>(scratch.data()) + offset % sizeof(float), n);
  }

  std::optional<uint64_t> file_offset() const override { return std::nullopt; }  // computed, not copied
  std::string why_not_in_file() const override { return "it is computed from an archive weight (a folded BatchNorm)"; }
  std::string entry_name() const override {
    return source_.storage->entry_name() + " (scaled by BatchNorm folding)";
  }

 private:
  archive::TensorData source_;
  std::vector<double> factors_;
  int64_t inner_;
};

// Whether emit can write the view at the speed of a plain copy (emit/permuted_copy.h): a dense
// permutation that fits one block or whose output runs are long enough. A view that is invalid is left for emit to
// report on the source weight itself.
bool permutes_at_copy_speed(const archive::TensorData& view) {
  try {
    const TensorLayout layout = make_layout(view, view.name);
    return layout.contiguous || layout.nbytes <= kPermuteBlockBytes ||
           permuted_run_bytes(layout) >= kMinPermutedRunBytes;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

FoldedWeights::FoldedWeights(model::OnnxModel& model, std::map<std::string, archive::TensorData> weights,
                             std::map<std::string, archive::TensorData> constants)
    : model_(model), weights_(std::move(weights)), constants_(std::move(constants)) {}

const archive::TensorData* FoldedWeights::bound_tensor(const std::string& initializer) const {
  for (const model::WeightBinding& b : model_.weights) {
    if (b.initializer != initializer) continue;
    const auto& first = b.is_constant ? constants_ : weights_;
    const auto& second = b.is_constant ? weights_ : constants_;
    auto found = first.find(b.fqn);
    if (found != first.end()) return &found->second;
    found = second.find(b.fqn);
    return found != second.end() ? &found->second : nullptr;
  }
  return nullptr;
}

std::optional<std::vector<float>> FoldedWeights::read_floats(const std::string& initializer) {
  for (const onnx::TensorProto& t : model_.proto.graph().initializer()) {
    if (t.name() != initializer) continue;
    if (t.data_type() != onnx::TensorProto_DataType_FLOAT) return std::nullopt;
    if (t.float_data_size() > 0) return std::vector<float>(t.float_data().begin(), t.float_data().end());
    if (t.has_raw_data()) {
      std::vector<float> v(t.raw_data().size() / sizeof(float));
      if (v.size() * sizeof(float) != t.raw_data().size()) return std::nullopt;
      std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
      return v;
    }
    break;  // a declaration: the data is in the archive
  }
  const archive::TensorData* tensor = bound_tensor(initializer);
  if (!tensor || tensor->dtype != ir::DType::kFloat32 || tensor->numel() > kMaxReadElements) return std::nullopt;
  const std::vector<uint8_t> bytes = tensor->read_contiguous();
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

bool FoldedWeights::add_scaled(const std::string& source, const std::string& name, std::vector<double> factors,
                               int64_t inner) {
  const archive::TensorData* tensor = bound_tensor(source);
  if (!tensor || tensor->dtype != ir::DType::kFloat32 || !tensor->is_contiguous() || factors.empty() || inner <= 0)
    return false;
  archive::TensorData scaled;
  scaled.name = tensor->name + " (BatchNorm folded)";
  scaled.dtype = tensor->dtype;
  scaled.sizes = tensor->sizes;
  scaled.strides.assign(scaled.sizes.size(), 1);  // row-major
  for (size_t d = scaled.sizes.size(); d-- > 1;) scaled.strides[d - 1] = scaled.strides[d] * scaled.sizes[d];
  scaled.storage = std::make_shared<ScaledStorage>(*tensor, std::move(factors), inner);
  // Derived weights live under a key no FQN can take (FQNs have no spaces).
  const std::string key = "batchnorm-folded " + name;
  weights_[key] = std::move(scaled);
  model_.weights.push_back(model::WeightBinding{name, key, false});
  return true;
}

bool FoldedWeights::add_permuted(const std::string& source, const std::string& name,
                                 const std::vector<int64_t>& perm) {
  const archive::TensorData* tensor = bound_tensor(source);
  if (!tensor || !tensor->storage || perm.size() != tensor->sizes.size()) return false;
  std::vector<int64_t> strides = tensor->strides;
  if (strides.empty()) {  // none recorded: row-major
    strides.assign(tensor->sizes.size(), 1);
    for (size_t d = strides.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<int64_t>(tensor->sizes[d], 1);
  }
  if (strides.size() != tensor->sizes.size()) return false;
  archive::TensorData view = *tensor;  // same storage: no bytes are copied or held here
  view.name = tensor->name + " (transposed)";
  std::vector<bool> seen(perm.size(), false);
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t from = perm[i];
    if (from < 0 || from >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(from)]) return false;
    seen[static_cast<size_t>(from)] = true;
    view.sizes[i] = tensor->sizes[static_cast<size_t>(from)];
  }
  view.strides.resize(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) view.strides[i] = strides[static_cast<size_t>(perm[i])];
  if (!permutes_at_copy_speed(view)) return false;  // the Transpose stays a node
  const std::string key = "transposed " + name;  // no FQN has a space
  weights_[key] = std::move(view);
  model_.weights.push_back(model::WeightBinding{name, key, false});
  return true;
}

bool FoldedWeights::add_packed_4bit(const std::string& source, const std::string& name, const Packing& how) {
  const archive::TensorData* tensor = bound_tensor(source);
  std::optional<archive::TensorData> packed =
      tensor ? packed_4bit(*tensor, FourBitPacking{how.is_signed, how.offset_to_unsigned, how.row, how.dims})
             : std::nullopt;
  if (!packed) return false;
  const std::string key = "packed-4bit " + name;  // no FQN has a space
  weights_[key] = std::move(*packed);
  model_.weights.push_back(model::WeightBinding{name, key, false});
  return true;
}

}  // namespace pt2onnx::emit
