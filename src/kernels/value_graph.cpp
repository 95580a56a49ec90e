#include "kernels/value_graph.h"

#include <set>

#include "common/error.h"

namespace pt2onnx::kernels::detail {

ValueGraph::ValueGraph(const onnx::FunctionProto& function) : function_(function) {
  for (const auto& op : function.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = static_cast<int>(op.version());
  for (int o = 0; o < function.output_size(); ++o) output_index_.emplace(function.output(o), o);
  for (int i = 0; i < function.node_size(); ++i)
    for (const auto& in : function.node(i).input()) {
      auto& users = consumers_[in];
      if (users.empty() || users.back() != i) users.push_back(i);
    }
}

void ValueGraph::find_symbols(const std::vector<TensorType>& inputs) {
  std::set<std::string> symbols;
  for (const auto& t : inputs)
    for (const auto& d : t.shape)
      for (const auto& s : ir::free_symbols(d)) symbols.insert(s);
  for (const auto& s : symbols) {
    bool found = false;
    for (size_t i = 0; i < inputs.size() && !found; ++i)
      for (size_t a = 0; a < inputs[i].shape.size() && !found; ++a)
        if (inputs[i].shape[a]->op == ir::SymOp::kSymbol && inputs[i].shape[a]->name == s) {
          sources_.push_back({s, function_.input(static_cast<int>(i)), static_cast<int>(a)});
          found = true;
        }
    PT2ONNX_CHECK(found, ErrorCode::kUnsupported,
                  "--compile: function " + function_.name() + ": symbol " + s + " is not the size of any input dimension");
    symbols_.push_back(s);
  }
}

Value& ValueGraph::value(const std::string& name) {
  auto it = values_.find(name);
  PT2ONNX_CHECK(it != values_.end(), ErrorCode::kUnsupported,
                "--compile: function " + function_.name() + ": value '" + name + "' is not defined (optional input?)");
  return it->second;
}

std::string ValueGraph::load(Body& b, const std::string& name, const Idx& idx) {
  std::string key = name + "[";
  for (const auto& i : idx) key += i + ",";
  if (auto it = b.memo.find(key); it != b.memo.end()) return it->second;
  std::string r = value(name).load(b, idx);
  b.memo[key] = r;
  return r;
}

const std::vector<int>& ValueGraph::consumers(const std::string& name) const {
  static const std::vector<int> kNone;
  auto it = consumers_.find(name);
  return it == consumers_.end() ? kNone : it->second;
}

const onnx::NodeProto* ValueGraph::producer(const std::string& name) const {
  for (const auto& n : function_.node())
    for (const auto& o : n.output())
      if (o == name) return &n;
  return nullptr;
}

}  // namespace pt2onnx::kernels::detail
