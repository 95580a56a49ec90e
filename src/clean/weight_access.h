// What weight folding and packing need from the weights: the values of small ones, and whether
// emit can write a weight derived from one (emit/derived_tensors.h says how). WeightReader is
// the interface (api/weights_beside_clean.h reads the archive); WeightAccess is the passes' side
// of it: it reads the graph's own data first, finds each weight's archive binding, and collects
// the derived weights that clean_model() returns as data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include "model/derived_weight.h"
#include "model/onnx_model.h"

namespace pt2onnx::clean {

// Whether an initializer only declares a weight (dims and dtype): its data comes from the weight
// binding at emit, not from the proto. Only such an initializer can be derived from the archive.
bool is_declaration(const onnx::TensorProto& t);

class WeightReader {
 public:
  virtual ~WeightReader() = default;
  // The float32 elements of an archive weight (row-major), or nullopt when it is not float32,
  // not in the archive, or too large to read here.
  virtual std::optional<std::vector<float>> read_floats(const model::WeightBinding& weight) = 0;
  // The same for int64 weights (index buffers); none by default.
  virtual std::optional<std::vector<int64_t>> read_int64s(const model::WeightBinding& /*weight*/) { return std::nullopt; }
  // The sums of squares of a float32 archive weight's elements by channel, element i counting to
  // channel (i / inner) % channels, in double precision; nullopt when it is not float32 or not in
  // the archive. By default from read_floats (small weights); an archive reader reads in tiles.
  virtual std::optional<std::vector<double>> channel_sums_of_squares(const model::WeightBinding& weight, int64_t channels,
                                                                     int64_t inner);
  // Whether emit can write `weight` from its source's bytes as weight.how says; `earlier` are the
  // weights derived before it, in order (its source may be one of them). Reads no bytes.
  virtual bool derivable(const model::DerivedWeight& weight, const std::vector<model::DerivedWeight>& earlier) = 0;
};

class WeightAccess {
 public:
  // `graph` and `bindings` (model::OnnxModel's) must outlive this, and `bindings` stay unchanged.
  WeightAccess(WeightReader& reader, const onnx::GraphProto& graph, const std::vector<model::WeightBinding>& bindings)
      : reader_(reader), graph_(graph), bindings_(bindings) {}

  // The float32 elements of an initializer (row-major): its data in the graph, else its archive
  // weight's; nullopt when it is not float32, not known, or not small enough to read here.
  std::optional<std::vector<float>> read_floats(const std::string& initializer);
  // The int64 elements of an initializer that is an archive weight (not its graph data), or nullopt.
  std::optional<std::vector<int64_t>> read_archived_int64s(const std::string& initializer);
  // The sums of squares by channel (WeightReader::channel_sums_of_squares) of an initializer
  // that is an archive weight, or nullopt.
  std::optional<std::vector<double>> channel_sums_of_squares(const std::string& initializer, int64_t channels,
                                                             int64_t inner);
  // Whether the initializer is bound to an archive weight.
  bool archived(const std::string& initializer) { return binding(initializer) != nullptr; }

  // Declares that initializer `name` (already declared in the graph, or about to be, with the
  // type and dims `how` makes of `source`'s) holds `source` derived as `how` says. False when
  // `source` is not an archive weight or one derived before, or emit cannot derive it so (then
  // nothing is declared).
  bool add(const std::string& source, const std::string& name, model::DerivedWeight::How how);

  // Those declared, in order.
  std::vector<model::DerivedWeight>& derived() { return derived_; }

 private:
  // The archive binding of an initializer (the first of its name), or null.
  const model::WeightBinding* binding(const std::string& initializer);

  WeightReader& reader_;
  const onnx::GraphProto& graph_;
  const std::vector<model::WeightBinding>& bindings_;
  std::unordered_map<std::string_view, const model::WeightBinding*> by_initializer_;  // made on first ask
  std::unordered_set<std::string> derived_names_;
  std::vector<model::DerivedWeight> derived_;
};

}  // namespace pt2onnx::clean
