// translate_program and translate_with_rules as the translate tests call them: on a program the
// test keeps (it is copied for the consuming translate_program), with the warnings kept beside the
// model instead of in a sink.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "translate/translate_with_rules.h"
#include "translate/translate.h"

namespace pt2onnx::translate {

struct TestTranslation {
  onnx::ModelProto model;
  std::vector<model::WeightBinding> weights;
  ir::ModuleStacks node_modules;
  std::vector<std::string> warnings;
  std::vector<int64_t> custom_op_hits;
};

inline TestTranslation for_tests(Translated&& t, const model::Diagnostics& diagnostics) {
  return {std::move(t.model.proto), std::move(t.model.weights), std::move(t.model.node_modules), diagnostics.messages(),
          std::move(t.custom_op_hits)};
}

inline TestTranslation translate_program(const ir::Program& program, const TranslateOptions& options) {
  model::Diagnostics diagnostics;
  return for_tests(translate_program(ir::Program(program), options, diagnostics), diagnostics);
}

inline TestTranslation translate_with_rules(const ir::Program& program, const TranslateOptions& options,
                                            const RuleTable& rules) {
  model::Diagnostics diagnostics;
  return for_tests(translate_with_rules(program, options, rules, diagnostics), diagnostics);
}

}  // namespace pt2onnx::translate
