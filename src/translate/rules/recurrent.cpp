// Recurrent layers: the aten lstm/gru/rnn_tanh/rnn_relu overloads that nn.LSTM/GRU/RNN call, as
// one ONNX LSTM/GRU/RNN node per layer (both directions in one node). torch packs the gates of a
// weight in another order than ONNX (LSTM i,f,g,o against i,o,f,c; GRU r,z,n against z,r,h), so
// weights and biases are re-sliced in the graph; torch's GRU applies the reset gate to the hidden
// matmul plus its bias, which is ONNX's linear_before_reset=1. torch's packed layout is sequence
// first with the directions concatenated on the feature axis; ONNX's Y has a direction axis.
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"

namespace pt2onnx::translate {

namespace {

struct RecurrentKind {
  std::string_view op_type;          // ONNX op
  std::vector<int64_t> gate_order;   // ONNX gate k is torch gate gate_order[k]
  std::string_view activation;       // RNN only: the one activation ("" keeps ONNX's defaults)
};

const RecurrentKind kLstm{"LSTM", {0, 3, 1, 2}, ""};
const RecurrentKind kGru{"GRU", {1, 0, 2}, ""};
const RecurrentKind kRnnTanh{"RNN", {0}, "Tanh"};
const RecurrentKind kRnnRelu{"RNN", {0}, "Relu"};

// A torch weight or bias (gates stacked on axis 0, `hidden` rows each) in ONNX's gate order.
std::string onnx_gate_order(EmitContext& ctx, const std::string& w, int64_t hidden, const std::vector<int64_t>& order) {
  if (order.size() == 1) return w;
  const std::vector<std::string> gates =
      ctx.emit("Split", {w, ctx.const_i64s(std::vector<int64_t>(order.size(), hidden))}, {Attr("axis", int64_t{0})},
               static_cast<int>(order.size()));
  std::vector<std::string> reordered;
  for (int64_t g : order) reordered.push_back(gates[static_cast<size_t>(g)]);
  return ctx.concat(reordered, 0);
}

// The layers of lstm.input / gru.input / rnn_*.input. `hx`: the initial states (LSTM: h and c).
RuleResult recurrent(EmitContext& ctx, const ir::Node& node, const RecurrentKind& kind, const std::vector<std::string>& hx) {
  ArgReader args(ctx, node);
  const bool has_biases = args.get_bool("has_biases"), bidirectional = args.get_bool("bidirectional");
  const bool batch_first = args.get_bool("batch_first");
  const int64_t layers = args.get_int("num_layers");
  PT2ONNX_CHECK(!(args.get_bool("train") && args.get_float("dropout") > 0), ErrorCode::kUnsupported,
                std::string(kind.op_type) + " with dropout in training mode (random masks between layers)");
  const auto& param_names = std::get<ir::TensorListArg>(args.arg("params")).names;
  const std::vector<std::string> params = args.tensors("params");
  const int64_t dirs = bidirectional ? 2 : 1, per_dir = has_biases ? 4 : 2;
  PT2ONNX_CHECK(static_cast<int64_t>(params.size()) == layers * dirs * per_dir, ErrorCode::kUnsupported,
                std::string(kind.op_type) + ": " + std::to_string(params.size()) + " weights for " +
                    std::to_string(layers) + " layers, expected " + std::to_string(layers * dirs * per_dir) +
                    " (projections, proj_size > 0, have no ONNX form)");
  const ir::TensorMeta* w_hh = ctx.meta(param_names.at(1));
  PT2ONNX_CHECK(w_hh && w_hh->sizes.size() == 2 && w_hh->sizes[1].is_static(), ErrorCode::kUnsupported,
                std::string(kind.op_type) + ": hidden weight " + param_names.at(1) + " has no static shape");
  const int64_t hidden = w_hh->sizes[1].as_int();

  std::vector<Attr> attrs = {Attr("hidden_size", hidden), Attr("direction", bidirectional ? "bidirectional" : "forward")};
  if (kind.op_type == "GRU") attrs.emplace_back("linear_before_reset", int64_t{1});
  if (!kind.activation.empty())
    attrs.emplace_back("activations", std::vector<std::string>(static_cast<size_t>(dirs), std::string(kind.activation)));

  std::string x = args.tensor("input");
  if (batch_first) x = ctx.transpose(x, {1, 0, 2});
  std::vector<std::vector<std::string>> final_states(hx.size());
  for (int64_t layer = 0; layer < layers; ++layer) {
    std::vector<std::string> w, r, b;
    for (int64_t d = 0; d < dirs; ++d) {
      const size_t at = static_cast<size_t>((layer * dirs + d) * per_dir);
      w.push_back(ctx.unsqueeze(onnx_gate_order(ctx, params[at], hidden, kind.gate_order), {0}));
      r.push_back(ctx.unsqueeze(onnx_gate_order(ctx, params[at + 1], hidden, kind.gate_order), {0}));
      if (has_biases)
        b.push_back(ctx.unsqueeze(ctx.concat({onnx_gate_order(ctx, params[at + 2], hidden, kind.gate_order),
                                              onnx_gate_order(ctx, params[at + 3], hidden, kind.gate_order)}, 0), {0}));
    }
    std::vector<std::string> inputs = {x, ctx.concat(w, 0), ctx.concat(r, 0), has_biases ? ctx.concat(b, 0) : "", ""};
    const std::string first = ctx.const_i64s({layer * dirs}), last = ctx.const_i64s({(layer + 1) * dirs});
    for (const std::string& state : hx) inputs.push_back(ctx.emit("Slice", {state, first, last, ctx.const_i64s({0})}));
    const std::vector<std::string> outs = ctx.emit(kind.op_type, inputs, attrs, static_cast<int>(1 + hx.size()));
    // Y [seq, dirs, batch, hidden] -> [seq, batch, dirs * hidden]
    x = ctx.reshape(ctx.transpose(outs[0], {0, 2, 1, 3}), ctx.const_i64s({0, 0, -1}));
    for (size_t s = 0; s < hx.size(); ++s) final_states[s].push_back(outs[1 + s]);
  }
  ctx.set_output(0, batch_first ? ctx.transpose(x, {1, 0, 2}) : x);
  for (size_t s = 0; s < hx.size(); ++s) ctx.set_output(1 + s, ctx.concat(final_states[s], 0));
  return RuleResult::kEmitted;
}

// lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout,
//            bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)
RuleResult aten_lstm(EmitContext& ctx, const ir::Node& node) {
  const std::vector<std::string> hx = ArgReader(ctx, node).tensors("hx");
  PT2ONNX_CHECK(hx.size() == 2, ErrorCode::kUnsupported, "lstm: hx has " + std::to_string(hx.size()) + " tensors, expected h and c");
  return recurrent(ctx, node, kLstm, hx);
}
// gru.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train,
//           bool bidirectional, bool batch_first) -> (Tensor, Tensor)
RuleResult aten_gru(EmitContext& ctx, const ir::Node& node) {
  return recurrent(ctx, node, kGru, {ArgReader(ctx, node).tensor("hx")});
}
// rnn_tanh.input(...) -> (Tensor, Tensor)   (gru.input's schema)
RuleResult aten_rnn_tanh(EmitContext& ctx, const ir::Node& node) {
  return recurrent(ctx, node, kRnnTanh, {ArgReader(ctx, node).tensor("hx")});
}
// rnn_relu.input(...) -> (Tensor, Tensor)   (gru.input's schema)
RuleResult aten_rnn_relu(EmitContext& ctx, const ir::Node& node) {
  return recurrent(ctx, node, kRnnRelu, {ArgReader(ctx, node).tensor("hx")});
}

}  // namespace

void register_recurrent_rules(RuleTable& t) {
  t.add("aten.lstm.input", aten_lstm);
  t.add("aten.gru.input", aten_gru);
  t.add("aten.rnn_tanh.input", aten_rnn_tanh);
  t.add("aten.rnn_relu.input", aten_rnn_relu);
}

}  // namespace pt2onnx::translate
