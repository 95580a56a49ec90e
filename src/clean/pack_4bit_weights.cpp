// A Cast of an int8/uint8 weight (an initializer whose data is in the archive) to INT4/UINT4
// becomes an INT4/UINT4 initializer that holds the weight packed two per byte
// (WeightAccess::add; emit/packed_4bit.h packs it while it is written). The
// quantization rules cast a weight whose quant range is 4 bits (torchao int4 weight-only, its
// zero points) so; the file then holds half a byte per element, and a runtime reads the weight
// as the 4-bit type its DequantizeLinear (or MatMulNBits) wants. Only when every reader of the
// weight is such a Cast: the int8 original then goes dead. A Cast that cannot be folded stays,
// still correct.
#include <string_view>
#include <unordered_map>

#include "clean/clean.h"
#include "clean/passes_internal.h"
#include "ir/onnx_dtype.h"

namespace pt2onnx::clean {

namespace {

constexpr int32_t kInt4 = ir::kOnnxInt4;
constexpr int32_t kUInt4 = ir::kOnnxUInt4;

// The 4-bit type a Cast node makes (0: not a Cast to INT4/UINT4).
int32_t cast_to_4bit(const onnx::NodeProto& node) {
  if (node.op_type() != "Cast" || !node.domain().empty() || node.input_size() != 1) return 0;
  const int64_t to = int_attribute(node, "to", 0);
  return to == kInt4 || to == kUInt4 ? static_cast<int32_t>(to) : 0;
}


}  // namespace

int pack_4bit_weights(Body& body, WeightAccess& weights) {
  if (!body.graph) return 0;
  Nodes& nodes = *body.nodes;
  std::map<std::string, std::vector<int>> casts;  // weight -> the Casts to 4 bits that read it
  std::set<std::string> other_reads(body.outputs.begin(), body.outputs.end());
  for (const auto& v : body.graph->input()) other_reads.insert(v.name());  // a graph input's value may be fed: not the archive's
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& node = nodes.Get(i);
    const bool cast = cast_to_4bit(node) != 0;
    for (const std::string& in : node.input()) {
      if (cast) casts[in].push_back(i);
      else other_reads.insert(in);
    }
    subgraph_reads(node, other_reads);
  }
  std::unordered_map<std::string_view, const onnx::TensorProto*> initializer_by_name;
  for (const onnx::TensorProto& t : body.graph->initializer()) initializer_by_name.emplace(t.name(), &t);

  FreshNames fresh(body);
  std::vector<bool> keep(static_cast<size_t>(nodes.size()), true);
  std::map<std::string, std::string> renames;
  int packed = 0;
  for (const auto& [weight, readers] : casts) {
    if (other_reads.count(weight)) continue;
    auto found = initializer_by_name.find(weight);
    const onnx::TensorProto* w = found == initializer_by_name.end() ? nullptr : found->second;
    if (!w || !is_declaration(*w)) continue;
    const int32_t to = cast_to_4bit(nodes.Get(readers.front()));
    bool same = true;
    for (int r : readers) same = same && cast_to_4bit(nodes.Get(r)) == to && body.outputs.count(nodes.Get(r).output(0)) == 0;
    const int32_t from = to == kInt4 ? onnx::TensorProto_DataType_INT8 : onnx::TensorProto_DataType_UINT8;
    if (!same || w->data_type() != from) continue;
    const std::string name = fresh(weight + (to == kInt4 ? ".int4" : ".uint4"));
    model::DerivedWeight::Packed4Bit how;
    how.is_signed = to == kInt4;
    if (!weights.add(weight, name, how)) {
      fresh.release(name);
      continue;
    }
    onnx::TensorProto declared = *w;
    declared.set_name(name);
    declared.set_data_type(to);
    declare_initializer(body, std::move(declared));
    for (int r : readers) {
      renames[nodes.Get(r).output(0)] = name;
      keep[static_cast<size_t>(r)] = false;
    }
    ++packed;
  }
  if (!packed) return 0;
  for (onnx::NodeProto& node : nodes) apply_renames(node, renames);
  erase_nodes(body, keep);
  return packed;
}

}  // namespace pt2onnx::clean
