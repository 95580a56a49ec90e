// Function bodies of config rules: parsed with libonnx's OnnxParser, then checked for what the
// converter relies on (a name, a domain, at least one output, nodes whose inputs are defined).
#include "config/onnx_text.h"

#include <set>
#include <stdexcept>

#include <onnx/defs/parser.h>

#include "common/error.h"
#include "common/limits.h"

namespace pt2onnx::config {

onnx::FunctionProto parse_function(const std::string& text, const std::string& where) {
  // libonnx's parser recurses into nested graphs, types and tensor literals: bound the nesting first.
  check_bracket_nesting(text, "()[]{}", ErrorCode::kUsage, where + ": ONNX text");
  onnx::FunctionProto function;
  onnx::Status status;
  try {
    status = onnx::OnnxParser::Parse(function, text.c_str());
  } catch (const std::logic_error& e) {
    // libonnx reads numbers with std::stol/stod, which throw on a literal they cannot hold or
    // where a number must be ("float = -alpha"): the text is malformed, not our bug.
    fail(ErrorCode::kUsage, where + ": not a function in ONNX text syntax: a malformed or out-of-range number (" +
                                std::string(e.what()) + ")");
  }
  PT2ONNX_CHECK(status.IsOK(), ErrorCode::kUsage, where + ": not a function in ONNX text syntax: " + status.ErrorMessage());
  PT2ONNX_CHECK(!function.name().empty(), ErrorCode::kUsage, where + ": the function has no name");
  PT2ONNX_CHECK(function.output_size() > 0, ErrorCode::kUsage, where + ": the function " + function.name() + " has no outputs");
  // Every value a node reads must be a function input or an earlier node's output.
  std::set<std::string> defined(function.input().begin(), function.input().end());
  for (const onnx::NodeProto& node : function.node()) {
    for (const std::string& in : node.input())
      PT2ONNX_CHECK(in.empty() || defined.count(in), ErrorCode::kUsage,
                    where + ": in function " + function.name() + ", node " + node.op_type() + " reads '" + in +
                        "', which no input or earlier node defines");
    defined.insert(node.output().begin(), node.output().end());
  }
  for (const std::string& out : function.output())
    PT2ONNX_CHECK(defined.count(out), ErrorCode::kUsage,
                  where + ": function " + function.name() + " never computes its output '" + out + "'");
  return function;
}

onnx::AttributeProto to_attribute_proto(const std::string& name, const translate::Attr::Value& value) {
  translate::Attr attr(name, int64_t{0});
  attr.value = value;
  return translate::make_attribute(attr);
}

}  // namespace pt2onnx::config
