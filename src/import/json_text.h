// Parses the exporter's JSON text, including the bare Infinity/-Infinity/NaN tokens that torch
// 2.3-2.4 wrote (Python's json.dumps with allow_nan=True); they become the strings "Infinity",
// "-Infinity" and "NaN", which the readers of floats and ranges accept.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pt2onnx::import {

// Throws Error(kArchive) "<source_name>: malformed JSON: ..." on invalid text (also a number
// out of double's range), and refuses a document nested past limits().nesting, so that every
// recursive walk over the result is bounded.
nlohmann::json parse_export_json(const std::string& text, const std::string& source_name);

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string json_error_text(const nlohmann::json::exception& e);

// `text` with the bare non-finite tokens outside strings quoted; exposed for tests.
std::string quote_nonfinite_tokens(const std::string& text);

}  // namespace pt2onnx::import
