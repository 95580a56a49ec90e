// WeightAccess: the graph's data first, then the archive through the reader.
#include "clean/weight_access.h"

#include <cstring>
#include <utility>

namespace pt2onnx::clean {

std::optional<std::vector<float>> WeightAccess::read_floats(const std::string& initializer) {
  for (const onnx::TensorProto& t : graph_.initializer()) {
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
  const model::WeightBinding* weight = binding(initializer);
  return weight ? reader_.read_floats(*weight) : std::nullopt;
}

std::optional<std::vector<int64_t>> WeightAccess::read_archived_int64s(const std::string& initializer) {
  const model::WeightBinding* weight = binding(initializer);
  return weight ? reader_.read_int64s(*weight) : std::nullopt;
}

bool is_declaration(const onnx::TensorProto& t) {
  return !t.has_raw_data() && t.float_data_size() == 0 && t.int32_data_size() == 0 && t.int64_data_size() == 0 &&
         t.double_data_size() == 0 && t.uint64_data_size() == 0 && t.string_data_size() == 0 &&
         t.data_location() != onnx::TensorProto_DataLocation_EXTERNAL;
}

std::optional<std::vector<double>> WeightAccess::channel_sums_of_squares(const std::string& initializer,
                                                                        int64_t channels, int64_t inner) {
  const model::WeightBinding* weight = binding(initializer);
  return weight ? reader_.channel_sums_of_squares(*weight, channels, inner) : std::nullopt;
}

std::optional<std::vector<double>> WeightReader::channel_sums_of_squares(const model::WeightBinding& weight,
                                                                        int64_t channels, int64_t inner) {
  if (channels <= 0 || inner <= 0) return std::nullopt;
  std::optional<std::vector<float>> values = read_floats(weight);
  if (!values) return std::nullopt;
  std::vector<double> sums(static_cast<size_t>(channels), 0.0);
  for (size_t i = 0; i < values->size(); ++i) {
    const double v = (*values)[i];
    sums[(i / static_cast<size_t>(inner)) % sums.size()] += v * v;
  }
  return sums;
}

const model::WeightBinding* WeightAccess::binding(const std::string& initializer) {
  if (by_initializer_.empty()) {
    by_initializer_.reserve(bindings_.size());
    for (const model::WeightBinding& b : bindings_) by_initializer_.emplace(b.initializer, &b);  // the first kept
  }
  auto found = by_initializer_.find(initializer);
  return found == by_initializer_.end() ? nullptr : found->second;
}

bool WeightAccess::add(const std::string& source, const std::string& name, model::DerivedWeight::How how) {
  model::DerivedWeight weight{name, {}, std::move(how)};
  if (const model::WeightBinding* archived = binding(source))
    weight.source = *archived;
  else if (derived_names_.count(source))
    weight.source.initializer = source;  // derived before: no fqn
  else
    return false;
  if (!reader_.derivable(weight, derived_)) return false;
  derived_names_.insert(name);
  derived_.push_back(std::move(weight));
  return true;
}

}  // namespace pt2onnx::clean
