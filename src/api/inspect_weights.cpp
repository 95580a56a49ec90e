// Parameter, buffer and constant totals: the signature says which FQN is which kind, the archive
// says how big each is. Persistent buffers live in the state dict, non-persistent ones with the
// constants; a tensor found in the other map still counts, one found in neither is "missing".
#include "api/inspect_summary.h"

#include "common/error.h"
#include "emit/archive_reference.h"
#include "emit/tensor_layout.h"
#include "emit/write_model.h"

namespace pt2onnx {

WeightTotals WeightSummary::total() const {
  return {parameters.count + buffers.count + constants.count, parameters.bytes + buffers.bytes + constants.bytes};
}

namespace inspection {

namespace {

const archive::TensorData* find_tensor(const std::string& fqn, const std::map<std::string, archive::TensorData>& first,
                                       const std::map<std::string, archive::TensorData>& second) {
  if (auto it = first.find(fqn); it != first.end()) return &it->second;
  if (auto it = second.find(fqn); it != second.end()) return &it->second;
  return nullptr;
}

// Why --external-data=archive would refuse the tensor, or "" (also for one small enough to embed).
std::string archive_refusal(const std::string& fqn, const archive::TensorData& tensor) {
  try {
    const emit::TensorLayout layout = emit::make_layout(tensor, "weight '" + fqn + "'");
    if (layout.nbytes == 0 || layout.nbytes < emit::WriteOptions().external_min_bytes) return "";
    const std::string reason = emit::unreferenceable_reason(tensor, layout);
    return reason.empty() ? "" : "weight '" + fqn + "': " + reason;
  } catch (const Error& error) {
    return error.what();
  }
}

}  // namespace

WeightSummary summarize_weights(const ir::GraphSignature& signature,
                                const std::map<std::string, archive::TensorData>& weights,
                                const std::map<std::string, archive::TensorData>& constants) {
  WeightSummary summary;
  for (const ir::InputSpec& spec : signature.inputs) {
    WeightTotals* totals = nullptr;
    bool in_state_dict = true;
    switch (spec.kind) {
      case ir::InputKind::kParameter:
        totals = &summary.parameters;
        break;
      case ir::InputKind::kBuffer:
        totals = &summary.buffers;
        in_state_dict = spec.persistent;
        break;
      case ir::InputKind::kTensorConstant:
        totals = &summary.constants;
        in_state_dict = false;
        break;
      default:
        continue;  // user inputs, custom objects, tokens, constant inputs hold no tensor data
    }
    const archive::TensorData* tensor = in_state_dict ? find_tensor(spec.target, weights, constants)
                                                      : find_tensor(spec.target, constants, weights);
    ++totals->count;
    if (!tensor) {
      summary.missing.push_back(spec.target);
      continue;
    }
    totals->bytes += tensor->nbytes();
    if (std::string refusal = archive_refusal(spec.target, *tensor); !refusal.empty())
      if (summary.unreferenceable++ == 0) summary.unreferenceable_first = std::move(refusal);
  }
  return summary;
}

}  // namespace inspection

}  // namespace pt2onnx
