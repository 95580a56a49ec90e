// translate_program with a rule table of the caller's choice (tests and inspect's refusal
// collection use their own tables or options), on a program the caller keeps: nothing of it is
// freed, and the Translated's value_types are left empty. The public translate_program uses
// builtin_rules().
#pragma once

#include "translate/rule_table.h"
#include "translate/translate.h"

namespace pt2onnx::translate {

Translated translate_with_rules(const ir::Program& program, const TranslateOptions& options, const RuleTable& rules,
                                model::Diagnostics& diagnostics);

// What translate_program keeps of the program it consumes (Translated::value_types): the tensor
// values but those of weight placeholders, which no ONNX value is named after.
ir::TensorValues value_types(ir::Program&& program);

// The lowest ONNX IR version a model of `opset` needs (onnx/helper.py's VERSION_TABLE).
int64_t ir_version_for_opset(int opset);

// Throws Error(kUnsupported) naming every live target that no rule at `opset` handles, with
// counts and one example node each.
// Targets that a config rule in `custom` matches count as supported.
void check_supported(const ir::Program& program, const std::vector<bool>& live, const RuleTable& rules, int opset,
                     const std::vector<CustomOpRule>& custom = {});

}  // namespace pt2onnx::translate
