// A sign analysis over one scope: which values are provably >= 0 (made from Range from 0, Shape,
// comparisons, and ops that keep signs), and the scope's small constants. Graph inputs are never
// assumed non-negative.
#pragma once

#include <map>
#include <set>
#include <string>

#include "clean/body.h"
#include "clean/const_tensor.h"

namespace pt2onnx::clean {

// Whether every element of c is >= least (NaN is not).
bool all_at_least(const ConstTensor& c, int64_t least);

class Signs {
 public:
  explicit Signs(const Body& body);
  bool non_negative(const std::string& value) const;
  // The value of a constant (Constant node or initializer that no input overrides), or null.
  const ConstTensor* constant(const std::string& value) const;

 private:
  bool input_non_negative(const onnx::NodeProto& node, int k) const;
  bool all_inputs_non_negative(const onnx::NodeProto& node) const;
  bool is_zero(const std::string& value) const;
  bool non_negative_result(const onnx::NodeProto& node) const;

  std::map<std::string, ConstTensor> constants_;
  std::set<std::string> non_negative_;
};

}  // namespace pt2onnx::clean
