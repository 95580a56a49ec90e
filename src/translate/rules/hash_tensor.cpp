// hash_tensor(Tensor self, int[1] dim=[], *, bool keepdim=False, int mode=0) -> Tensor: torch's
// mode 0 (xor_sum) XORs the 64-bit patterns of the elements over `dim` (all dims when empty) into
// a uint64: a float element's pattern is its float64 value's (NaN payload and sign included), an
// integer's or bool's is its int64 value's. ONNX reads bit patterns only through BitCast (opset
// 26); the XOR runs as a Scan over the reduced elements, which BitwiseXor has no reduction for.
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "ir/onnx_dtype.h"
#include "translate/onnx_types.h"
#include "translate/rules/register_all.h"
#include "translate/rule_helpers.h"
#include "translate/subgraph_body.h"

namespace pt2onnx::translate {

namespace {

using ir::DType;
using ir::is_floating;

RuleResult aten_hash_tensor(EmitContext& ctx, const ir::Node& node) {
  ArgReader args(ctx, node);
  PT2ONNX_CHECK(args.int_or("mode", 0) == 0, ErrorCode::kUnsupported, "hash_tensor with a mode other than 0 (xor_sum)");
  PT2ONNX_CHECK(ctx.opset() >= 26, ErrorCode::kUnsupported,
                "hash_tensor below opset 26: it hashes bit patterns, which ONNX reads only through BitCast (opset 26)");
  const DType type = args.dtype_of("self");
  const int64_t rank = args.rank_of("self");
  const DType wide = is_floating(type) ? DType::kFloat64 : DType::kInt64;
  const std::string bits = ctx.emit("BitCast", {cast_if_needed(ctx, args.tensor("self"), type, wide)},
                                    {Attr("to", static_cast<int64_t>(onnx_dtype(DType::kUInt64)))});

  std::vector<int64_t> dims = args.has("dim") ? normalize_dims(args.ints("dim"), rank) : std::vector<int64_t>{};
  if (dims.empty())
    for (int64_t d = 0; d < rank; ++d) dims.push_back(d);
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  // The kept dims first, the reduced ones flattened into one last axis the Scan walks.
  std::vector<int64_t> perm;
  std::vector<std::string> kept_sizes;
  for (int64_t d = 0; d < rank; ++d)
    if (!reduced[static_cast<size_t>(d)]) {
      perm.push_back(d);
      kept_sizes.push_back(ctx.shape_slice(bits, d, d + 1));
    }
  for (int64_t d : dims) perm.push_back(d);
  const std::string moved = rank > 1 ? ctx.transpose(bits, perm) : bits;
  std::vector<std::string> flat_parts = kept_sizes;
  flat_parts.push_back(ctx.const_i64s({-1}));
  const std::string flat = ctx.reshape(moved, ctx.concat(flat_parts, 0));
  const std::string kept_shape = kept_sizes.empty() ? ctx.const_i64s({}) : ctx.concat(kept_sizes, 0);

  onnx::GraphProto body;
  body.set_name(ctx.fresh_name(node.name + "_xor"));
  const std::string acc = add_typed_input(ctx, body, "acc", DType::kUInt64);
  const std::string element = add_typed_input(ctx, body, "element", DType::kUInt64);
  add_typed_output(body, append_body_node(ctx, body, "BitwiseXor", {acc, element}), DType::kUInt64);
  const std::string zeros = ctx.emit("Expand", {ctx.const_scalar(0, DType::kUInt64), kept_shape});
  const int64_t scan_axis = static_cast<int64_t>(kept_sizes.size());
  std::string hash = ctx.emit("Scan", {zeros, flat},
                              {Attr("body", std::move(body)), Attr("num_scan_inputs", int64_t{1}),
                               Attr("scan_input_axes", std::vector<int64_t>{scan_axis})},
                              1)[0];
  if (args.bool_or("keepdim", false) && !dims.empty()) hash = ctx.unsqueeze(hash, dims);
  return emitted(ctx, hash);
}

}  // namespace

void register_hash_tensor_rules(RuleTable& t) { t.add("aten.hash_tensor.default", aten_hash_tensor); }

}  // namespace pt2onnx::translate
