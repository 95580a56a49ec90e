// The program's state: parameters, buffers and user inputs whose values it updates. A functional
// graph (core ATen IR) says so in its signature (BUFFER_MUTATION / PARAMETER_MUTATION /
// USER_INPUT_MUTATION outputs); the default IR of torch 2.9+ is not functional and updates them
// with in-place ops (add_, copy_, index_copy_, possibly through views; a training batch norm's
// running statistics), leaving the signature silent. Both become explicit ONNX state: the old
// value a graph input, the new one a graph output (graph_io.cpp).
#pragma once

#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/refusals.h"

namespace pt2onnx::translate {

struct StateUpdate {
  ir::InputKind kind = ir::InputKind::kBuffer;  // kBuffer, kParameter or kUserInput (others are refused)
  std::string target;       // parameter/buffer FQN, or the user input's name
  std::string placeholder;  // FX name of its placeholder
  std::string new_value;    // FX name of the new value (a signature mutation output); "" when in-place
  std::string how;          // "BUFFER_MUTATION output add_1", "in-place aten.index_copy_.default (node index_copy_)"
  // Why convert refuses the update ("" when it becomes ONNX state): a tensor constant updated, a
  // write ONNX state cannot follow. The one verdict convert and inspect share.
  std::string refusal;
  // No ONNX state needed: nn.Embedding(max_norm=...) renormalising the rows it looks up, which no
  // other reader of the weight sees (each call's results equal those of the untouched weight).
  bool stateless = false;
};

// Every updated parameter, buffer and user input, in signature input order, each with convert's
// verdict. Throws Error(kUnsupported) for a mutation output whose target is no input of the program.
std::vector<StateUpdate> list_state_updates(const ir::Program& program);

// Program-level refusals of state, one message each ("" entries never): a joint training graph
// (gradient outputs).
std::vector<std::string> state_program_refusals(const ir::Program& program);

// The updates that become ONNX state (buffers, parameters and user inputs; the stateless ones
// left out). Throws Error(kUnsupported) with the first refusal (state_program_refusals, then
// each update's) unless `refused` is given: then every refusal is appended there and the
// refused updates are left out.
std::vector<StateUpdate> find_state_updates(const ir::Program& program, Refusals* refused = nullptr);

// "buffer", "user input", "parameter", ...
const char* state_kind_word(ir::InputKind kind);

}  // namespace pt2onnx::translate
