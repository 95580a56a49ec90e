// Core ATen IR writes a matmul on batched operands as view -> bmm -> view (the batch dims merged
// into one) and a linear on a [batch, seq, k] input as view -> addmm -> view (batch and rows
// merged). ONNX MatMul broadcasts over leading dims itself, so where the types show that the
// Reshapes only merge and split the leading dims, the chain is one MatMul on the unreshaped
// operands (a Gemm's bias becomes an Add after it):
//
//   batched: A [L..., m, k] -> A' [N..., m, k], B [L..., k, n] -> B' [N..., k, n],
//            C' = A' @ B' [N..., m, n] -> C [L..., m, n]          =>  C = MatMul(A, B)
//   matrix:  A [L..., m, k] -> A' [M..., k], B [k, n] (rank 2), C' = A' @ B [M..., n] -> C [L..., m, n]
//                                                               =>  C = MatMul(A, B) (+ bias)
//
// Dims compare as static sizes or the same symbolic expression of the export, so nothing dynamic
// is assumed; the flattening is row-major both ways, so each matrix pair meets as before.
#include "clean/const_tensor.h"
#include "clean/passes_internal.h"

namespace pt2onnx::clean {

namespace {

size_t rank(const ValueType& t) { return t.dims.size(); }

bool plain(const onnx::NodeProto& node, const char* op, int inputs) {
  return node.op_type() == op && node.domain().empty() && node.input_size() == inputs && node.output_size() == 1;
}

// A Gemm that is a plain product (+ a bias that broadcasts along rows only): alpha 1, beta 1,
// no transposes.
bool plain_gemm(const onnx::NodeProto& node, const KnownTypes& known) {
  if (node.op_type() != "Gemm" || !node.domain().empty() || node.output_size() != 1 || node.input_size() < 2)
    return false;
  const onnx::AttributeProto* alpha = find_attribute(node, "alpha");
  const onnx::AttributeProto* beta = find_attribute(node, "beta");
  if ((alpha && alpha->f() != 1.0f) || (beta && beta->f() != 1.0f) || int_attribute(node, "transA", 0) != 0 ||
      int_attribute(node, "transB", 0) != 0)
    return false;
  if (node.input_size() < 3 || node.input(2).empty()) return true;
  const std::optional<ValueType> bias = known.lookup(node.input(2));
  if (!bias || !bias->shape_known) return false;
  return rank(*bias) <= 1 || (rank(*bias) == 2 && bias->dims[0] == 1);
}

struct Chain {
  int product = -1;   // the MatMul/Gemm
  std::string a, b;   // the operands it gets instead
};

}  // namespace

int fold_batched_matmuls(Body& body) {
  Nodes& nodes = *body.nodes;
  const KnownTypes known = known_types(body);
  auto [producer, reads] = value_uses(body);
  auto made_by = [&](const std::string& v) -> int {
    auto found = producer.find(v);
    return found == producer.end() ? -1 : found->second;
  };
  FreshNames fresh(body);

  std::vector<bool> used(static_cast<size_t>(nodes.size()), false);
  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  int folded = 0;
  for (int i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& outer = nodes.Get(i);  // C = Reshape(C', shape)
    if (!plain(outer, "Reshape", 2) || used[static_cast<size_t>(i)]) continue;
    const int p = made_by(outer.input(0));
    if (p < 0 || used[static_cast<size_t>(p)] || reads[outer.input(0)] != 1) continue;
    const onnx::NodeProto& product = nodes.Get(p);
    const bool gemm = plain_gemm(product, known);
    if (!gemm && !plain(product, "MatMul", 2)) continue;
    const int ra = made_by(product.input(0));
    if (ra < 0 || !plain(nodes.Get(ra), "Reshape", 2)) continue;
    const std::string& a = nodes.Get(ra).input(0);
    const std::optional<ValueType> ta = known.lookup(a), ta2 = known.lookup(product.input(0));
    const std::optional<ValueType> tb2 = known.lookup(product.input(1));
    const std::optional<ValueType> tc2 = known.lookup(product.output(0)), tc = known.lookup(outer.output(0));
    if (!ta || !ta2 || !tb2 || !tc2 || !tc || rank(*ta) < 2 || rank(*ta2) < 2 || rank(*tb2) < 2 ||
        rank(*tc) != rank(*ta) || rank(*tc2) != rank(*ta2))
      continue;
    const size_t lead = rank(*ta) - 2;  // L...
    std::string b = product.input(1);
    int rb = -1;
    if (rank(*tb2) == 2) {
      // matrix: k and n kept; L... and m (C without its last dim) the same as A without its last.
      if (!same_dims(*ta, lead + 1, *ta2, rank(*ta2) - 1, 1) || !same_dims(*ta, 0, *tc, 0, lead + 1) ||
          !same_dims(*tc, lead + 1, *tc2, rank(*tc2) - 1, 1))
        continue;
    } else {
      if (gemm) continue;
      rb = made_by(b);
      if (rb < 0 || !plain(nodes.Get(rb), "Reshape", 2)) continue;
      b = nodes.Get(rb).input(0);
      const std::optional<ValueType> tb = known.lookup(b);
      const size_t batch = rank(*ta2) - 2;  // N...
      // A' and B' the same batch (no broadcasting inside), every matrix kept whole, and
      // A, B, C the same leading dims.
      if (!tb || rank(*tb) != rank(*ta) || rank(*tb2) != rank(*ta2) || !same_dims(*ta2, 0, *tb2, 0, batch) ||
          !same_dims(*ta, lead, *ta2, batch, 2) || !same_dims(*tb, lead, *tb2, batch, 2) ||
          !same_dims(*tc, lead, *tc2, batch, 2) || !same_dims(*ta, 0, *tb, 0, lead) || !same_dims(*ta, 0, *tc, 0, lead))
        continue;
    }
    const std::string key = instance_key(body, i);
    if (instance_key(body, p) != key || instance_key(body, ra) != key || (rb >= 0 && instance_key(body, rb) != key))
      continue;

    used[static_cast<size_t>(i)] = used[static_cast<size_t>(p)] = true;
    onnx::NodeProto& rewritten = *nodes.Mutable(i);
    const std::string c = rewritten.output(0);
    const bool bias = gemm && product.input_size() >= 3 && !product.input(2).empty();
    rewritten.clear_input();
    rewritten.clear_attribute();
    if (!bias) {
      rewritten.set_op_type("MatMul");
      rewritten.add_input(a);
      rewritten.add_input(b);
    } else {
      const std::string mm = fresh(c + "_MatMul");
      onnx::NodeProto matmul;
      matmul.set_name(mm);
      matmul.set_op_type("MatMul");
      matmul.add_input(a);
      matmul.add_input(b);
      matmul.add_output(mm);
      rewritten.set_op_type("Add");
      rewritten.add_input(mm);
      rewritten.add_input(product.input(2));
      inserts.emplace_back(i, std::move(matmul));
    }
    ++folded;
  }
  insert_before(body, std::move(inserts));
  return folded;
}

}  // namespace pt2onnx::clean
