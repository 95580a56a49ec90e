// AtenBuilder: what a decomposition writes with. Each op method adds one aten node as torch.export
// would have written it and records the meta of its output (dtype and sizes, symbolic sizes as
// expressions) as torch's meta function computes it, so the rules that translate the new nodes
// see what they see in any program. The new nodes carry the decomposed node's module stack and
// metadata. Nothing reaches the graph unless the decomposition returns kEmitted (decompose.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "translate/node_args.h"

namespace pt2onnx::translate {

// Thrown by a builder method whose output meta it cannot state (a broadcast of unrelated symbolic
// sizes, say): the decomposition declines, and the node is left to its rules.
struct CannotDecompose {
  std::string reason;
};

// One size for view/expand: its value (static or symbolic) and the argument that passes it (an
// int, or the name of a sym_size node's SymInt).
struct Size {
  ir::Dim dim;
  ir::SymIntArg arg;
};

class AtenBuilder {
 public:
  // `fresh_name(base)`: a name no value or node of the graph has yet.
  AtenBuilder(const ir::Graph& graph, const ir::Node& node, std::function<std::string(const std::string&)> fresh_name);

  // The node's arguments, metas included.
  const NodeArgs& args() const { return args_; }
  // The meta of a value of the graph or one made here.
  const ir::TensorMeta& meta(const std::string& value) const;
  int64_t rank(const std::string& value) const { return static_cast<int64_t>(meta(value).sizes.size()); }
  // The meta the node's output i has in the program.
  const ir::TensorMeta& output_meta(size_t i) const;

  // ---- sizes ----------------------------------------------------------------------------
  static Size constant(int64_t n);
  // Dim `dim` of `value`: the static size, or a new sym_size node reading it.
  Size size(const std::string& value, int64_t dim);

  // ---- ops (dims already normalized to [0, rank)) ------------------------------------------
  std::string permute(const std::string& x, const std::vector<int64_t>& dims);
  std::string flip(const std::string& x, const std::vector<int64_t>& dims);
  std::string unsqueeze(const std::string& x, int64_t dim);
  // view with one size of -1 at most (its extent is what the others leave of x's elements).
  std::string view(const std::string& x, const std::vector<Size>& sizes);
  std::string expand(const std::string& x, const std::vector<Size>& sizes);
  std::string cat(const std::vector<std::string>& xs, int64_t dim);
  // Elementwise arithmetic with broadcasting and torch's type promotion.
  std::string mul(const std::string& a, const std::string& b);
  std::string add(const std::string& a, const std::string& b);
  std::string sub(const std::string& a, const std::string& b);
  // sqrt (integers give the default float, float32).
  std::string sqrt(const std::string& x);
  // x != 0, a bool tensor of x's shape.
  std::string ne_zero(const std::string& x);
  // sum over `dims` (all with none), integers and bools in int64 unless `dtype` says otherwise.
  std::string sum(const std::string& x, const std::optional<std::vector<int64_t>>& dims, bool keepdim,
                  std::optional<ir::DType> dtype = std::nullopt);
  // linalg_vector_norm over all elements.
  std::string vector_norm(const std::string& x, double ord);

  // ---- results ----------------------------------------------------------------------------
  // The node's outputs, flattened (a tensor list counts each tensor).
  size_t output_count() const { return output_names_.size(); }
  void set_output(size_t i, const std::string& value);

  // What the pass splices in: the nodes made, outputs bound to the node's own names; the metas
  // of the new values (not those of the node's outputs, which the program has); the sizes read.
  struct Written {
    std::vector<ir::Node> nodes;
    std::vector<std::pair<std::string, ir::TensorMeta>> metas;
    std::vector<std::pair<std::string, ir::Dim>> sym_ints;
  };
  // Throws Error(kInternal) when an output is unbound or its meta disagrees with the program's.
  Written finish();

 private:
  std::string make(const std::string& op, const std::string& target, std::vector<ir::NamedArgument> inputs, ir::TensorMeta out);
  // The meta of an elementwise result of a and b: broadcast sizes, the given dtype.
  ir::TensorMeta broadcast(const std::string& a, const std::string& b, ir::DType dtype) const;

  class Args : public NodeArgs {
   public:
    Args(const ir::Node& node, const AtenBuilder& builder) : NodeArgs(node, nullptr), builder_(builder) {}

   protected:
    const ir::TensorMeta* find_meta(const std::string& fx_name) const override;

   private:
    const AtenBuilder& builder_;
  };

  const ir::Graph& graph_;
  const ir::Node& node_;
  std::function<std::string(const std::string&)> fresh_name_;
  Args args_;
  std::vector<ir::Node> nodes_;
  std::vector<std::pair<std::string, ir::TensorMeta>> metas_;  // by value made here, in order
  std::vector<std::pair<std::string, ir::Dim>> sym_ints_;
  std::vector<std::string> output_names_;
  std::vector<std::string> bound_;
};

}  // namespace pt2onnx::translate
