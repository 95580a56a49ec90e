// ONNX text syntax in config rules, through libonnx's parser.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

#include "translate/emit_context.h"

namespace pt2onnx::config {

// Parses one function ("<domain: ..., opset_import: [...]> Name <attrs> (inputs) => (outputs) { ... }").
// Throws Error(kUsage) naming `where` (a JSON path) and the parser's message.
onnx::FunctionProto parse_function(const std::string& text, const std::string& where);

// The AttributeProto of a literal config attribute.
onnx::AttributeProto to_attribute_proto(const std::string& name, const translate::Attr::Value& value);

}  // namespace pt2onnx::config
