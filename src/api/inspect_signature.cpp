// The graph's user inputs and outputs (from the signature, typed from tensor_values) and the
// range constraints on its symbols.
#include <string>
#include <type_traits>
#include <variant>

#include "api/inspect_summary.h"
#include "ir/dtype.h"
#include "ir/sym_expr.h"
#include "translate/program_state.h"

namespace pt2onnx::inspection {

namespace {

InspectDim describe_dim(const ir::Dim& dim) {
  if (dim.is_static()) return dim.as_int();
  return ir::to_string(dim.as_expr());
}

// Kind names for the argument forms a signature entry can bind; a tensor gets its meta.
ValueSummary describe_value(const ir::Graph& graph, const ir::Argument& arg) {
  ValueSummary value;
  std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, ir::TensorArg>) {
          value.name = a.name;
          value.kind = "tensor";
          auto meta = graph.tensor_values.find(a.name);
          value.has_meta = meta != graph.tensor_values.end();
          if (value.has_meta) {
            value.dtype = std::string(ir::dtype_name(meta->second.dtype));
            for (const ir::Dim& d : meta->second.sizes) value.dims.push_back(describe_dim(d));
          }
        } else if constexpr (std::is_same_v<T, ir::SymIntArg> || std::is_same_v<T, ir::SymFloatArg> ||
                             std::is_same_v<T, ir::SymBoolArg>) {
          // A named symbolic value, or (for a constant) the value itself as the name.
          value.kind = std::is_same_v<T, ir::SymIntArg>     ? "symint"
                       : std::is_same_v<T, ir::SymFloatArg> ? "symfloat"
                                                            : "symbool";
          std::visit(
              [&](const auto& v) {
                using V = std::decay_t<decltype(v)>;
                if constexpr (std::is_same_v<V, std::string>) {
                  value.name = v;
                } else {
                  if constexpr (std::is_same_v<V, bool>)
                    value.name = v ? "True" : "False";
                  else
                    value.name = std::to_string(v);
                  value.kind = "constant";
                }
              },
              a.v);
        } else if constexpr (std::is_same_v<T, ir::TokenArg>) {
          value.name = a.name;
          value.kind = "token";
        } else if constexpr (std::is_same_v<T, ir::CustomObjArg>) {
          value.name = a.name;
          value.kind = "custom object";
        } else if constexpr (std::is_same_v<T, ir::NoneArg>) {
          value.kind = "none";
        } else if constexpr (std::is_same_v<T, std::string>) {
          value.name = a;
          value.kind = "constant";
        } else {
          value.kind = "other";
        }
      },
      arg);
  return value;
}

}  // namespace

std::vector<ValueSummary> summarize_user_inputs(const ir::Program& program) {
  std::vector<ValueSummary> out;
  for (const ir::InputSpec& spec : program.signature.inputs)
    if (spec.kind == ir::InputKind::kUserInput) out.push_back(describe_value(program.graph, spec.arg));
  return out;
}

std::vector<ValueSummary> summarize_user_outputs(const ir::Program& program) {
  std::vector<ValueSummary> out;
  for (const ir::OutputSpec& spec : program.signature.outputs)
    if (spec.kind == ir::OutputKind::kUserOutput || spec.kind == ir::OutputKind::kLossOutput)
      out.push_back(describe_value(program.graph, spec.arg));
  return out;
}

std::vector<SymbolRange> summarize_range_constraints(const ir::Program& program) {
  std::vector<SymbolRange> out;
  for (const auto& [symbol, range] : program.range_constraints) out.push_back({symbol, range.min, range.max});
  return out;
}

std::vector<StateSummary> summarize_state(const ir::Program& program) {
  std::vector<StateSummary> out;
  for (const translate::StateUpdate& u : translate::list_state_updates(program))
    if (!u.stateless)  // convert's verdict (program_state.h): no state, no refusal
      out.push_back(StateSummary{translate::state_kind_word(u.kind), u.target, u.how, u.refusal.empty()});
  return out;
}

}  // namespace pt2onnx::inspection
