// Small helpers of the program IR.
#include "ir/program.h"

namespace pt2onnx::ir {

const Argument* Node::input(const std::string& arg_name) const {
  for (const auto& in : inputs)
    if (in.name == arg_name) return &in.arg;
  return nullptr;
}

}  // namespace pt2onnx::ir
