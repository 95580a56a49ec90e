// Pieces of PT2 and legacy archives for the tests: PayloadConfig JSON and the records every
// PT2 archive carries.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "archive/test_zip.h"

namespace pt2onnx::archive::testing {

constexpr int64_t kSchemaFloat32 = 7;
constexpr int64_t kSchemaInt64 = 5;

// One PayloadMeta: {"path_name", "is_param", "use_pickle", "tensor_meta": {...}}.
nlohmann::json payload_meta(const std::string& path_name, int64_t dtype,
                            const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                            int64_t storage_offset = 0, bool use_pickle = false);
// {"config": {fqn: meta}}.
std::string payload_config(const nlohmann::json& config_by_fqn);

// archive_format, archive_version, byteorder and .data/version under `root` ("" or "name/").
std::vector<ZipItem> pt2_records(const std::string& root, const std::string& byteorder = "little");

// A placeholder ExportedProgram JSON; the archive stage never parses it.
std::string program_json(const std::string& tag);

// Appends `more` to `items`.
void append(std::vector<ZipItem>& items, const std::vector<ZipItem>& more);

}  // namespace pt2onnx::archive::testing
