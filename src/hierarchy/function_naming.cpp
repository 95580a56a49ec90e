// Function names of --hiera: the class name, kept clear of standard ONNX op names.
#include "hierarchy/function_naming.h"

#include <cctype>
#include <string_view>

#include "model/onnx_type_table.h"

namespace pt2onnx::hierarchy {

namespace {

// Standard ops newer than libonnx 1.12 (opset 17; model/onnx_type_table.inc) knows, including ones proposed for
// upcoming opsets; a name here is as dangerous to TensorRT as one in the registry.
constexpr std::string_view kNewerStandardOps[] = {
    "AffineGrid",  "Attention",  "BitCast",       "BitwiseAnd",    "BitwiseNot",       "BitwiseOr",
    "BitwiseXor",  "CausalConvWithState", "CenterCropPad", "Col2Im", "CumProd",     "DeformConv",
    "Gelu",        "GroupNormalization",  "ImageDecoder",  "LinearAttention", "Mish", "RMSNormalization",
    "RegexFullMatch", "RotaryEmbedding",  "StringConcat",  "StringSplit", "SwiGLU",  "Swish",
    "TensorScatter"};

}  // namespace

bool is_standard_op_name(const std::string& name) {
  for (std::string_view op : kNewerStandardOps)
    if (op == name) return true;
  return model::is_onnx_op_name(name);
}

std::string function_base_name(const std::string& type, const std::string& pattern) {
  const size_t dot = type.rfind('.');
  const std::string cls = dot == std::string::npos ? type : type.substr(dot + 1);
  std::string name;
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 7, "{class}") == 0) {
      name += cls;
      i += 7;
    } else if (pattern.compare(i, 11, "{qualified}") == 0) {
      name += type;
      i += 11;
    } else {
      name += pattern[i++];
    }
  }
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) name = "_" + name;
  if (is_standard_op_name(name)) name += "Module";
  return name;
}

std::string claim_function_name(const std::string& base, std::set<std::string>& taken) {
  std::string name = base;
  for (int suffix = 1; taken.count(name) || is_standard_op_name(name); ++suffix) name = base + "_" + std::to_string(suffix);
  taken.insert(name);
  return name;
}

}  // namespace pt2onnx::hierarchy
