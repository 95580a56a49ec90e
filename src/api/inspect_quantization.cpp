// The quantization scheme inspect reports: which weights are quantized and how (per tensor,
// channel or group; the values' type and range), how the ONNX at the inspected opset holds each
// (the forms of translate/rules/quantize.cpp and passes/pack_4bit_weights.cpp), and the
// quantize/dequantize ops on activations, static or dynamic.
#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "api/inspect_summary.h"
#include "ir/dtype.h"

namespace pt2onnx::inspection {

namespace {

const ir::Argument* arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = node.input(name);
  return a && !std::holds_alternative<ir::NoneArg>(*a) ? a : nullptr;
}

std::optional<int64_t> int_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = arg(node, name);
  if (const auto* s = a ? std::get_if<ir::SymIntArg>(a) : nullptr)
    if (const auto* v = std::get_if<int64_t>(&s->v)) return *v;
  return std::nullopt;
}

std::string tensor_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = arg(node, name);
  const auto* t = a ? std::get_if<ir::TensorArg>(a) : nullptr;
  return t ? t->name : "";
}

std::optional<ir::DType> dtype_arg(const ir::Node& node, const char* name) {
  const ir::Argument* a = arg(node, name);
  if (const auto* t = a ? std::get_if<ir::ScalarTypeArg>(a) : nullptr) return t->dtype;
  return std::nullopt;
}

bool is_float8(ir::DType t) {
  return t == ir::DType::kFloat8E4M3FN || t == ir::DType::kFloat8E5M2 || t == ir::DType::kFloat8E4M3FNUZ ||
         t == ir::DType::kFloat8E5M2FNUZ;
}

// The values a quantized tensor of `stored` holds within [lo, hi]: 4-bit ranges named as such.
std::string values_of(ir::DType stored, std::optional<int64_t> lo, std::optional<int64_t> hi) {
  const std::string name(ir::dtype_name(stored));
  if (lo && hi) {
    const std::string range = " (" + std::to_string(*lo) + ".." + std::to_string(*hi) + " in " + name + ")";
    if (stored == ir::DType::kInt8 && *lo >= -8 && *hi <= 7) return "int4" + range;
    if (stored == ir::DType::kUInt8 && *lo >= 0 && *hi <= 15) return "uint4" + range;
  }
  return name;
}

// How the ONNX at `opset` holds a weight of these values (rules/quantize.cpp's forms).
std::string onnx_form(const std::string& values, ir::DType stored, int opset) {
  if (values.rfind("int4", 0) == 0 || values.rfind("uint4", 0) == 0) {
    const std::string type = values[0] == 'u' ? "UINT4" : "INT4";
    return opset >= 21 ? type + " initializer, two per byte" : "refused: 4-bit weights need opset 21";
  }
  if (is_float8(stored)) return opset >= 19 ? "float8 initializer" : "refused: float8 needs opset 19";
  if (stored == ir::DType::kInt16 || stored == ir::DType::kUInt16)
    return opset >= 21 ? std::string(ir::dtype_name(stored)) + " initializer" : "refused: 16-bit quantization needs opset 21";
  return std::string(ir::dtype_name(stored)) + " initializer";
}

// torchao's block_size against the input's dims: per tensor, per axis, or in groups along one.
std::string block_scheme(const ir::Node& node, const ir::TensorMeta* meta) {
  const ir::Argument* a = arg(node, "block_size");
  const auto* list = a ? std::get_if<ir::SymIntListArg>(a) : nullptr;
  if (!list || !meta || list->items.size() != meta->sizes.size()) return "in blocks";
  int kept = 0, split = 0;
  int64_t axis = 0, group = 0;
  for (size_t i = 0; i < list->items.size(); ++i) {
    const auto* b = std::get_if<int64_t>(&list->items[i].v);
    const ir::Dim& d = meta->sizes[i];
    const std::optional<int64_t> size = d.is_static() ? std::optional<int64_t>(d.as_int()) : std::nullopt;
    if (!b) return "in blocks";
    if (*b == 1 && size != 1) {
      ++kept;
      if (split == 0) axis = static_cast<int64_t>(i);
    } else if (*b != 1 && size && *b != *size) {
      ++split;
      axis = static_cast<int64_t>(i);
      group = *b;
    }
  }
  if (split == 0 && kept == 0) return "per tensor";
  if (split == 0 && kept == 1) return "per channel (axis " + std::to_string(axis) + ")";
  const auto* last = std::get_if<int64_t>(&list->items.back().v);
  if (split == 0 && kept == static_cast<int>(list->items.size()) - 1 && last && *last != 1) return "per token";
  if (split == 1) return "per group of " + std::to_string(group) + " (axis " + std::to_string(axis) + ")";
  return "in blocks";
}

struct Reading {
  std::string input;                 // the quantized (or to be quantized) tensor
  std::optional<ir::DType> stored;   // the quantized dtype
  std::string scheme;
  bool dequantize = true;
};

// What a quantization op does, or nullopt for other ops.
std::optional<Reading> read_op(const ir::Node& node, const ir::TensorValues& values) {
  const std::string& t = node.target;
  auto starts = [&t](const char* prefix) { return t.rfind(prefix, 0) == 0; };
  auto meta = [&values](const std::string& name) -> const ir::TensorMeta* {
    auto found = values.find(name);
    return found == values.end() ? nullptr : &found->second;
  };
  Reading r;
  r.input = tensor_arg(node, "input");
  if (r.input.empty()) return std::nullopt;
  const ir::TensorMeta* in = meta(r.input);
  const bool dq = starts("quantized_decomposed.dequantize_") || starts("torchao.dequantize_affine");
  const bool q = starts("quantized_decomposed.quantize_") || starts("torchao.quantize_affine");
  if (!dq && !q) return std::nullopt;
  r.dequantize = dq;
  r.stored = dq ? (in ? std::optional<ir::DType>(in->dtype) : std::nullopt)
                : (dtype_arg(node, "dtype") ? dtype_arg(node, "dtype") : dtype_arg(node, "output_dtype"));
  if (t.find("_per_tensor") != std::string::npos) r.scheme = "per tensor";
  else if (t.find("_per_channel_group") != std::string::npos)
    r.scheme = "per group of " + std::to_string(int_arg(node, "group_size").value_or(0)) + " (axis 1)";
  else if (t.find("_per_channel") != std::string::npos)
    r.scheme = "per channel (axis " + std::to_string(int_arg(node, "axis").value_or(0)) + ")";
  else if (t.find("_per_token") != std::string::npos) r.scheme = "per token";
  else r.scheme = block_scheme(node, in);
  return r;
}

bool is_view(const std::string& target) {
  return target == "aten.t.default" || target == "aten.transpose.int" || target == "aten.permute.default" ||
         target == "aten.view.default" || target == "aten.reshape.default" || target == "aten.alias.default";
}

bool is_cast(const std::string& target) {
  return target == "aten.to.dtype" || target == "aten._to_copy.default" || target == "aten.to.dtype_layout" ||
         target == "prims.convert_element_type.default";
}

}  // namespace

QuantizationSummary summarize_quantization(const ir::Program& program, int opset) {
  std::map<std::string, std::string> weight_of;  // placeholder -> FQN
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (ir::is_weight(spec.kind))
      if (const auto* t = std::get_if<ir::TensorArg>(&spec.arg)) weight_of[t->name] = spec.target;
  std::map<std::string, std::string> weight_view;  // a weight's placeholder, or a view of it -> the placeholder
  for (const auto& [placeholder, fqn] : weight_of) weight_view[placeholder] = placeholder;
  const ir::TensorValues& values = program.graph.tensor_values;
  QuantizationSummary summary;
  std::set<std::string> seen;
  auto add_weight = [&](const std::string& placeholder, const ir::Node& node, const std::string& values_text,
                        ir::DType stored, const std::string& scheme) {
    if (!seen.insert(placeholder).second) return;
    QuantizedWeight w;
    w.weight = weight_of.at(placeholder);
    if (auto found = values.find(placeholder); found != values.end())
      for (const ir::Dim& d : found->second.sizes) w.shape.push_back(d.is_static() ? d.as_int() : -1);
    w.values = values_text;
    w.scheme = scheme;
    w.op = node.target;
    w.onnx = onnx_form(values_text, stored, opset);
    summary.weights.push_back(std::move(w));
  };
  for (const ir::Node& node : program.graph.nodes) {
    if (node.target.find("choose_qparams") != std::string::npos) {
      ++summary.activations[node.target + ": dynamic quantization parameters"];
      continue;
    }
    if (std::optional<Reading> r = read_op(node, values)) {
      const std::string text = r->stored ? values_of(*r->stored, int_arg(node, "quant_min"), int_arg(node, "quant_max"))
                                         : std::string("unknown");
      if (r->dequantize && weight_of.count(r->input) && r->stored) add_weight(r->input, node, text, *r->stored, r->scheme);
      else ++summary.activations[node.target + ": " + text + ", " + r->scheme];
      continue;
    }
    if (is_view(node.target) && !node.outputs.empty()) {  // a view of a weight stands for the weight
      auto w = weight_view.find(tensor_arg(node, "self"));
      const auto* out = std::get_if<ir::TensorArg>(&node.outputs.front());
      if (w != weight_view.end() && out) weight_view[out->name] = w->second;
      continue;
    }
    if (!is_cast(node.target)) continue;  // weight-only flows that widen a low-precision weight
    auto viewed = weight_view.find(tensor_arg(node, node.target == "prims.convert_element_type.default" ? "a" : "self"));
    if (viewed == weight_view.end()) continue;
    const std::string& input = viewed->second;
    auto found = values.find(input);
    if (found == values.end()) continue;
    const ir::DType stored = found->second.dtype;
    if (stored == ir::DType::kInt8 || stored == ir::DType::kUInt8 || is_float8(stored))
      add_weight(input, node, std::string(ir::dtype_name(stored)), stored, "cast (scaled after)");
  }
  return summary;
}

}  // namespace pt2onnx::inspection
