// The program's state: buffers and user inputs whose values it updates. A functional graph (core
// ATen IR) says so in its signature (BUFFER_MUTATION / USER_INPUT_MUTATION outputs); the default IR
// of torch 2.9+ is not functional and updates them with in-place ops (add_, copy_, index_copy_,
// possibly through views), leaving the signature silent. Both become explicit ONNX state: the old
// value a graph input, the new one a graph output (graph_io.cpp).
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"

namespace pt2onnx::translate {

struct StateUpdate {
  ir::InputKind kind = ir::InputKind::kBuffer;  // kBuffer or kUserInput (others are refused)
  std::string target;       // buffer FQN, or the user input's name
  std::string placeholder;  // FX name of its placeholder
  std::string new_value;    // FX name of the new value (a signature mutation output); "" when in-place
  std::string how;          // "BUFFER_MUTATION output add_1", "in-place aten.index_copy_.default (node index_copy_)"
};

// Every updated buffer and user input, in signature input order. Throws Error(kUnsupported) naming
// an update ONNX state cannot express: a parameter or tensor constant updated (training graphs),
// a mutation output whose target is no input of the program, gradients.
std::vector<StateUpdate> find_state_updates(const ir::Program& program);

// The same, but reports inexpressible updates as entries instead of throwing (for inspect):
// `kind` is then the input's kind (kParameter, kTensorConstant, ...).
std::vector<StateUpdate> list_state_updates(const ir::Program& program);

// "buffer", "user input", "parameter", ...
const char* state_kind_word(ir::InputKind kind);

}  // namespace pt2onnx::translate
