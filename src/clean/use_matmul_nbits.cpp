// --matmul-nbits: a Linear layer on a 4-bit weight, MatMul(x, Transpose(DequantizeLinear(w4,
// scale, zero))) or Gemm(x, DequantizeLinear(...), transB = 1), becomes onnxruntime's
// com.microsoft.MatMulNBits (what onnxruntime-genai runs LLMs with): the weight packed per row
// of K, offset to unsigned for int4 (emit/packed_4bit.h), scales flattened, zero points packed
// the same way per row of blocks. Only the blocked form it holds: DequantizeLinear along axis 1
// (K) in blocks of a power of two >= 16 that divides K, or per row (axis 0: one block of K,
// when K is such a power of two), a weight (and zero point) of the
// archive cast to INT4/UINT4 (the rules' form, before pack_4bit_weights packs it), float32
// scales. The result is the same (q - zero) * scale dequantization; onnxruntime's kernel
// accumulates in its own order. Anything else stays standard ONNX.
#include <string_view>
#include <unordered_map>

#include "clean/clean.h"
#include "clean/passes_internal.h"
#include "ir/onnx_dtype.h"

namespace pt2onnx::clean {

namespace {

constexpr const char* kDomain = "com.microsoft";

struct Match {
  int node = -1;              // the MatMul or Gemm
  std::string a, bias;        // its float input, Gemm's C ("" for none)
  std::string weight, zero;   // archive int8/uint8 initializers ("" for no zero point)
  std::string scale;
  bool is_signed = true;
  int64_t n = 0, k = 0, block = 0;
};


std::vector<int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name) {
  const onnx::AttributeProto* a = find_attribute(node, name);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : std::vector<int64_t>{};
}

float float_attribute(const onnx::NodeProto& node, const std::string& name, float fallback) {
  const onnx::AttributeProto* a = find_attribute(node, name);
  return a ? a->f() : fallback;
}

class Matcher {
 public:
  explicit Matcher(const Body& body) : body_(body), uses_(value_uses(body)) {
    for (const onnx::TensorProto& t : body.graph->initializer()) initializers_.emplace(t.name(), &t);
  }

  std::optional<Match> match(int i) const {
    const onnx::NodeProto& node = body_.nodes->Get(i);
    if (!node.domain().empty() || node.input_size() < 2 || inside_instance(body_, i)) return std::nullopt;
    Match m;
    m.node = i;
    m.a = node.input(0);
    const onnx::NodeProto* dq = nullptr;
    if (node.op_type() == "MatMul") {
      const onnx::NodeProto* t = single_reader_producer(node.input(1), "Transpose");
      if (!t || ints_attribute(*t, "perm") != std::vector<int64_t>{1, 0}) return std::nullopt;
      dq = single_reader_producer(t->input(0), "DequantizeLinear");
    } else if (node.op_type() == "Gemm") {
      if (int_attribute(node, "transA", 0) != 0 || int_attribute(node, "transB", 0) != 1 ||
          float_attribute(node, "alpha", 1.0f) != 1.0f)
        return std::nullopt;
      if (node.input_size() > 2 && !node.input(2).empty()) {
        if (float_attribute(node, "beta", 1.0f) != 1.0f) return std::nullopt;
        m.bias = node.input(2);
      }
      dq = single_reader_producer(node.input(1), "DequantizeLinear");
    }
    if (!dq || dq->input_size() < 2) return std::nullopt;
    int64_t to = 0;
    const onnx::TensorProto* w = cast_source(dq->input(0), to, false);
    if (!w || w->dims_size() != 2) return std::nullopt;
    m.is_signed = to == ir::kOnnxInt4;
    m.weight = w->name();
    m.n = w->dims(0);
    m.k = w->dims(1);
    // Blocks along K (axis 1), or one scale per row (axis 0, no blocks): one block of K.
    const int64_t axis = int_attribute(*dq, "axis", 1);
    m.block = axis == 1 ? int_attribute(*dq, "block_size", 0) : axis == 0 && !find_attribute(*dq, "block_size") ? m.k : 0;
    if (m.block < 16 || (m.block & (m.block - 1)) != 0 || m.k % m.block != 0) return std::nullopt;
    m.scale = dq->input(1);
    if (dq->input_size() > 2 && !dq->input(2).empty()) {
      int64_t zero_to = 0;
      const onnx::TensorProto* z = cast_source(dq->input(2), zero_to, true);
      int64_t count = 1;
      for (int64_t d : z ? z->dims() : google::protobuf::RepeatedField<int64_t>()) count *= d;
      if (!z || zero_to != to || count != m.n * (m.k / m.block)) return std::nullopt;
      m.zero = z->name();
    } else if (!m.is_signed) {
      return std::nullopt;  // uint4 without zero points is 0-based; MatMulNBits' default is 8
    }
    return m;
  }

 private:
  // The node of `op_type` that makes `value`, when `value` is read once (by the matched node).
  const onnx::NodeProto* single_reader_producer(const std::string& value, std::string_view op_type) const {
    auto p = uses_.producer.find(value);
    auto r = uses_.reads.find(value);
    if (p == uses_.producer.end() || r == uses_.reads.end() || r->second != 1) return nullptr;
    const onnx::NodeProto& node = body_.nodes->Get(p->second);
    return node.op_type() == op_type && node.domain().empty() ? &node : nullptr;
  }

  // The archive int8/uint8 initializer that a Cast to INT4/UINT4 making `value` reads (through
  // a Reshape, with `reshaped`: a zero point shaped for its DequantizeLinear); `to` its type.
  const onnx::TensorProto* cast_source(const std::string& value, int64_t& to, bool reshaped) const {
    auto p = uses_.producer.find(value);
    if (p == uses_.producer.end()) return nullptr;
    const onnx::NodeProto& cast = body_.nodes->Get(p->second);
    if (cast.op_type() != "Cast" || !cast.domain().empty() || cast.input_size() != 1) return nullptr;
    to = int_attribute(cast, "to", 0);
    const int32_t from = to == ir::kOnnxInt4    ? onnx::TensorProto_DataType_INT8
                         : to == ir::kOnnxUInt4 ? onnx::TensorProto_DataType_UINT8
                                                       : 0;
    std::string source = cast.input(0);
    auto r = uses_.producer.find(source);
    if (reshaped && r != uses_.producer.end()) {
      const onnx::NodeProto& reshape = body_.nodes->Get(r->second);
      if (reshape.op_type() != "Reshape" || !reshape.domain().empty()) return nullptr;
      source = reshape.input(0);  // row-major bytes are the same in any shape
    }
    auto w = initializers_.find(source);
    if (from == 0 || w == initializers_.end() || body_.inputs.count(source) == 0 || !is_declaration(*w->second) ||
        w->second->data_type() != from)
      return nullptr;
    return w->second;
  }

  const Body& body_;
  ValueUses uses_;
  std::unordered_map<std::string_view, const onnx::TensorProto*> initializers_;
};

}  // namespace

int use_matmul_nbits(Body& body, WeightAccess& weights) {
  if (!body.graph) return 0;
  std::vector<Match> matches;
  {
    const Matcher matcher(body);
    for (int i = 0; i < body.nodes->size(); ++i)
      if (std::optional<Match> m = matcher.match(i)) matches.push_back(std::move(*m));
  }
  if (matches.empty()) return 0;
  std::set<std::string> taken;
  for (const onnx::TensorProto& t : body.graph->initializer()) taken.insert(t.name());
  for (const onnx::NodeProto& node : *body.nodes) taken.insert(node.output().begin(), node.output().end());
  auto fresh = [&taken](const std::string& base) {
    std::string name = base;
    for (int k = 1; taken.count(name); ++k) name = base + "_" + std::to_string(k);
    taken.insert(name);
    return name;
  };
  auto declare_uint8 = [&](const std::string& name, const std::vector<int64_t>& dims) {
    onnx::TensorProto* t = body.graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto_DataType_UINT8);
    for (int64_t d : dims) t->add_dims(d);
    body.inputs.insert(name);
  };
  std::map<std::string, std::string> packed;  // archive weight -> its MatMulNBits form (shared by readers)
  auto pack = [&](const std::string& source, bool is_signed, int64_t row, std::vector<int64_t> dims) -> std::string {
    auto found = packed.find(source);
    if (found != packed.end()) return found->second;
    const std::string name = fresh(source + ".nbits");
    model::DerivedWeight::Packed4Bit how;
    how.is_signed = is_signed;
    how.offset_to_unsigned = is_signed;
    how.row = row;
    how.dims = dims;
    if (!weights.add(source, name, how)) return "";
    declare_uint8(name, dims);
    return packed[source] = name;
  };

  std::vector<std::pair<int, onnx::NodeProto>> inserts;
  int fused = 0;
  for (const Match& m : matches) {
    const int64_t blocks = m.k / m.block;
    const std::string b = pack(m.weight, m.is_signed, m.k, {m.n, blocks, m.block / 2});
    const std::string zero = m.zero.empty() ? "" : pack(m.zero, m.is_signed, blocks, {m.n * ((blocks + 1) / 2)});
    if (b.empty() || (!m.zero.empty() && zero.empty())) continue;
    onnx::NodeProto& node = *body.nodes->Mutable(m.node);
    const std::string flat_shape = fresh(m.scale + "_flat_shape");
    onnx::TensorProto* shape = body.graph->add_initializer();
    shape->set_name(flat_shape);
    shape->set_data_type(onnx::TensorProto_DataType_INT64);
    shape->add_dims(1);
    shape->add_int64_data(-1);
    body.inputs.insert(flat_shape);
    onnx::NodeProto reshape;
    reshape.set_op_type("Reshape");
    reshape.set_name(node.name() + "_scales");
    reshape.add_input(m.scale);
    reshape.add_input(flat_shape);
    reshape.add_output(fresh(m.scale + "_flat"));

    onnx::NodeProto nbits;
    nbits.set_op_type("MatMulNBits");
    nbits.set_domain(kDomain);
    nbits.set_name(node.name() + "_nbits");
    for (const std::string& in : {m.a, b, reshape.output(0)}) nbits.add_input(in);
    if (!zero.empty()) nbits.add_input(zero);
    for (const auto& [name, value] : {std::pair<const char*, int64_t>{"K", m.k}, {"N", m.n}, {"bits", 4}, {"block_size", m.block}}) {
      onnx::AttributeProto* a = nbits.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto_AttributeType_INT);
      a->set_i(value);
    }
    inserts.emplace_back(m.node, std::move(reshape));
    if (m.bias.empty()) {
      nbits.add_output(node.output(0));
      node = std::move(nbits);
    } else {  // Gemm's C: added after
      nbits.add_output(fresh(node.output(0) + "_nbits"));
      onnx::NodeProto add;
      add.set_op_type("Add");
      add.set_name(node.name());
      add.add_input(nbits.output(0));
      add.add_input(m.bias);
      add.add_output(node.output(0));
      inserts.emplace_back(m.node, std::move(nbits));
      node = std::move(add);
    }
    ++fused;
  }
  insert_before(body, std::move(inserts));
  return fused;
}

}  // namespace pt2onnx::clean
