// Helpers for importer tests: minimal programs around a graph, and error capture.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "import/import_program.h"

namespace pt2onnx::test {

inline constexpr const char* kSourceName = "models/model.json";

// A newest-style (8.20) ExportedProgram around `graph_json`.
inline std::string program_with_graph(const std::string& graph_json) {
  return R"({"graph_module": {"graph": )" + graph_json +
         R"(, "signature": {"input_specs": [], "output_specs": []}, "module_call_graph": []},
             "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": {"major": 8, "minor": 20},
             "verifiers": [], "torch_version": "2.15.0"})";
}

// A graph holding one node, with graph inputs of the given names (what the node may read: the
// import refuses a read of a value nothing defines).
inline std::string graph_with_node(const std::string& node_json, const std::vector<std::string>& inputs = {}) {
  std::string list;
  for (const std::string& name : inputs) list += (list.empty() ? "" : ", ") + std::string(R"({"as_tensor": {"name": ")") + name + "\"}}";
  return R"({"inputs": [)" + list + R"(], "outputs": [], "nodes": [)" + node_json + "]}";
}

inline ir::Program import_text(const std::string& json) { return import::import_program(json, kSourceName); }

// The message of the Error(kArchive) the import throws; fails the test if it does not throw.
inline std::string import_error(const std::string& json) {
  try {
    import::import_program(json, kSourceName);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kArchive);
    return e.what();
  }
  FAIL("expected the import to fail");
  return "";
}

// Shorthands for reading IR values in checks.
inline int64_t int_of(const ir::Argument& a) { return std::get<int64_t>(std::get<ir::SymIntArg>(a).v); }
inline double float_of(const ir::Argument& a) { return std::get<double>(std::get<ir::SymFloatArg>(a).v); }
inline bool bool_of(const ir::Argument& a) { return std::get<bool>(std::get<ir::SymBoolArg>(a).v); }
inline std::string tensor_of(const ir::Argument& a) { return std::get<ir::TensorArg>(a).name; }

}  // namespace pt2onnx::test
