#include "archive/payload_config.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "archive/payload_config_spans.h"
#include "archive/torch_save.h"
#include "common/error.h"
#include "common/read_once_text.h"

namespace pt2onnx::archive {

namespace {

namespace dom = simdjson::dom;

// Both readers parse the text in place, reading past its end into the padding it comes with.
static_assert(simdjson::SIMDJSON_PADDING <= ReadOnceText::kPadding);

// simdjson's messages start with the error's name ("TAPE_ERROR: ..."); keep the sentence.
std::string simdjson_text(simdjson::error_code code) {
  std::string_view text = simdjson::error_message(code);
  if (size_t colon = text.find(": "); colon != std::string_view::npos && colon < 24) text.remove_prefix(colon + 2);
  return std::string(text);
}

bool is_integer(dom::element e) { return e.is_int64() || e.is_uint64(); }
// As nlohmann's get<int64_t>() read it (a uint64 above INT64_MAX wraps).
int64_t integer(dom::element e) {
  return e.is_int64() ? int64_t(e.get_int64()) : static_cast<int64_t>(uint64_t(e.get_uint64()));
}

// The member `key` of an object, or null when `e` is no object or has none.
std::optional<dom::element> member(dom::element e, std::string_view key) {
  if (!e.is_object()) return std::nullopt;
  dom::element found;
  if (dom::object(e.get_object()).at_key(key).get(found)) return std::nullopt;
  return found;
}

// One JSON value parsed alone, from the text it lies in (whose padding it reads past its end),
// with the nesting left to it below the document's outer levels. The parser is reused: an element
// lives until the next parse.
class ValueParser {
 public:
  explicit ValueParser(size_t levels_above) : levels_above_(levels_above) {}

  std::optional<dom::element> parse(std::string_view json) {
    if (!allocated_) {
      allocated_ = true;
      if (parser_.allocate(json.size(), simdjson::DEFAULT_MAX_DEPTH - levels_above_)) return std::nullopt;
    }
    dom::element value;
    if (parser_.parse(json.data(), json.size(), /*realloc_if_needed=*/false).get(value)) return std::nullopt;
    return value;
  }

 private:
  size_t levels_above_;
  bool allocated_ = false;
  dom::parser parser_;
};

// The config's members are found by a scanner and parsed one at a time (payload_config_spans.h),
// so that no document of the whole config is held beside the index built from it. A config the
// scanner does not take (not JSON, or an unusual shape) is parsed whole with simdjson's DOM,
// which words the error as before.
class PayloadReader {
 public:
  PayloadReader(const ZipContainer& zip, const std::string& config_entry,
                const std::string& directory)
      : zip_(zip), config_entry_(config_entry), directory_(directory) {}

  std::map<std::string, TensorData> read() {
    // Mapped in place where the entry is STORED (what torch writes), read into memory otherwise.
    const std::unique_ptr<ReadOnceText> text = zip_.read_once_text(config_entry_);
    if (const std::optional<PayloadConfigSpans> spans = split_payload_config(text->text())) {
      if (std::optional<std::map<std::string, TensorData>> tensors = read_spans(*spans, *text))
        return std::move(*tensors);
    }
    return read_document(text->text());
  }

 private:
  // In document order, each value parsed when it is read and its pages of the text given back
  // behind it. Errors come as from the document, in key order: a value that is no JSON stops
  // this (nullopt: the document then words it), and of the errors of the members, the one with
  // the first key is thrown (the last of duplicate keys counting).
  std::optional<std::map<std::string, TensorData>> read_spans(const PayloadConfigSpans& spans, ReadOnceText& text) {
    if (!spans.others.empty()) {
      ValueParser others(kLevelsAboveRootValue);
      for (std::string_view value : spans.others)
        if (!others.parse(value)) return std::nullopt;
    }
    const std::vector<PayloadConfigSpans::Member>& members = spans.config;
    constexpr size_t kShadowed = SIZE_MAX;  // a later member has the same key
    std::vector<size_t> rank(members.size());
    {
      std::vector<size_t> order(members.size());
      std::iota(order.begin(), order.end(), size_t{0});
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return members[a].key < members[b].key; });
      for (size_t j = 0; j < order.size(); ++j) {
        const bool shadowed = j + 1 < order.size() && members[order[j + 1]].key == members[order[j]].key;
        rank[order[j]] = shadowed ? kShadowed : j;
      }
    }
    ValueParser values(kLevelsAboveConfigMember);
    std::map<std::string, TensorData> tensors;
    std::exception_ptr first_error;
    size_t first_error_rank = kShadowed;
    for (size_t i = 0; i < members.size(); ++i) {
      const std::optional<dom::element> meta = values.parse(members[i].value);
      if (!meta) return std::nullopt;
      if (rank[i] < first_error_rank) {  // neither shadowed nor after the first error by key
        try {
          std::string fqn(members[i].key);
          if (std::optional<TensorData> tensor = read_member(fqn, *meta))
            tensors.emplace(std::move(fqn), std::move(*tensor));
        } catch (...) {
          first_error = std::current_exception();
          first_error_rank = rank[i];
        }
      }
      if ((i + 1) % 1024 == 0) text.release_before(members[i].value.data() + members[i].value.size());
    }
    if (first_error) std::rethrow_exception(first_error);
    return tensors;
  }

  // The whole config as one simdjson DOM, its members read in key order.
  std::map<std::string, TensorData> read_document(std::string_view text) {
    dom::parser parser;
    dom::element root;
    if (simdjson::error_code e = parser.parse(text.data(), text.size(), /*realloc_if_needed=*/false).get(root))
      fail(ErrorCode::kArchive, zip_.describe(config_entry_) + ": not valid JSON: " + simdjson_text(e));
    const std::optional<dom::element> config = member(root, "config");
    if (!config || !config->is_object()) {
      error("", "expected {\"config\": {FQN: PayloadMeta}}");
    }
    // In key order, the last of duplicate keys winning (as the nlohmann DOM read it before), so
    // the first error reported is the same.
    std::vector<std::pair<std::string_view, dom::element>> members;
    for (dom::key_value_pair field : dom::object(config->get_object())) members.emplace_back(field.key, field.value);
    std::stable_sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::map<std::string, TensorData> tensors;
    for (size_t i = 0; i < members.size(); ++i) {
      if (i + 1 < members.size() && members[i + 1].first == members[i].first) continue;
      const std::string fqn(members[i].first);
      if (std::optional<TensorData> tensor = read_member(fqn, members[i].second))
        tensors.emplace_hint(tensors.end(), fqn, std::move(*tensor));
    }
    return tensors;
  }

  // A member of "config": its tensor, or nothing for a custom object (tensor_meta null).
  std::optional<TensorData> read_member(const std::string& fqn, dom::element meta) {
    if (!meta.is_object()) error(fqn, "expected an object");
    const std::optional<dom::element> tensor_meta = member(meta, "tensor_meta");
    if (!tensor_meta || tensor_meta->is_null()) return std::nullopt;
    return read_tensor(fqn, meta, *tensor_meta);
  }

  [[noreturn]] void error(const std::string& fqn, const std::string& what) const {
    fail(ErrorCode::kArchive, zip_.describe(config_entry_) + ": " +
                                  (fqn.empty() ? std::string() : "config['" + fqn + "']: ") + what);
  }

  dom::element field(const std::string& fqn, dom::element object, const char* key, const char* where) const {
    const std::optional<dom::element> found = member(object, key);
    if (!found) error(fqn, std::string(where) + " has no '" + key + "'");
    return *found;
  }

  // {"as_int": N}; older writers emit every union key with nulls, so look for the non-null one.
  // `where` makes the field's name, only for the message.
  template <typename Where>
  int64_t as_int(const std::string& fqn, dom::element value, const Where& where) const {
    if (const std::optional<dom::element> i = member(value, "as_int"); i && is_integer(*i)) return integer(*i);
    error(fqn, where() +
                   " is not a concrete integer ({\"as_int\": N}); symbolic weight shapes are not "
                   "supported");
  }

  std::vector<int64_t> int_list(const std::string& fqn, dom::element meta, const char* key) const {
    const dom::element list = field(fqn, meta, key, "tensor_meta");
    if (!list.is_array()) error(fqn, std::string("tensor_meta.") + key + " is not a list");
    std::vector<int64_t> out;
    size_t i = 0;
    for (dom::element item : dom::array(list.get_array())) {
      out.push_back(as_int(fqn, item, [&] { return std::string("tensor_meta.") + key + "[" + std::to_string(i) + "]"; }));
      ++i;
    }
    return out;
  }

  TensorData read_tensor(const std::string& fqn, dom::element meta, dom::element tensor_meta) {
    const dom::element path_json = field(fqn, meta, "path_name", "payload meta");
    if (!path_json.is_string()) error(fqn, "path_name is not a string");
    const std::string path_name(std::string_view(path_json.get_string()));
    const std::string entry = directory_ + path_name;
    if (!zip_.contains(entry))
      error(fqn, "path_name '" + path_name + "': the archive has no " + zip_.root() + entry);

    const std::optional<dom::element> pickle = member(meta, "use_pickle");
    const bool use_pickle = pickle && pickle->is_bool() && bool(pickle->get_bool());
    if (use_pickle) return load_saved_tensor(zip_, entry, fqn);  // a torch.save(tensor) zip

    TensorData tensor;
    tensor.name = fqn;
    const dom::element dtype = field(fqn, tensor_meta, "dtype", "tensor_meta");
    if (!is_integer(dtype) || !ir::dtype_from_schema(integer(dtype), tensor.dtype) ||
        tensor.dtype == ir::DType::kUnknown) {
      error(fqn, "tensor_meta.dtype " + simdjson::minify(dtype) + " is not a known ScalarType");
    }
    tensor.sizes = int_list(fqn, tensor_meta, "sizes");
    tensor.strides = int_list(fqn, tensor_meta, "strides");
    const std::optional<dom::element> offset = member(tensor_meta, "storage_offset");
    tensor.storage_offset = offset ? as_int(fqn, *offset, [] { return std::string("tensor_meta.storage_offset"); }) : 0;
    tensor.storage = blob(entry);

    auto where = [&] { return zip_.describe(entry); };
    uint64_t needed = 0;
    try {
      needed = tensor.storage_bytes_needed();
    } catch (const Error& e) {
      throw e.with_context(zip_.describe(config_entry_));
    }
    const uint64_t size = tensor.storage->size();
    const auto element_size = static_cast<uint64_t>(ir::dtype_size(tensor.dtype));
    if (size == 0 && needed > 0) {
      fail(ErrorCode::kArchive, where() + ": blob is empty but tensor_meta of '" + fqn + "' has " +
                                    std::to_string(tensor.numel()) +
                                    " elements (a fake or meta tensor was saved; it has no data)");
    }
    if (size % element_size != 0) {
      fail(ErrorCode::kArchive, where() + ": blob has " + std::to_string(size) +
                                    " bytes, not a multiple of the " +
                                    std::to_string(element_size) + "-byte elements of '" + fqn +
                                    "' (" + std::string(ir::dtype_name(tensor.dtype)) + ")");
    }
    if (size < needed) {
      fail(ErrorCode::kArchive, where() + ": blob has " + std::to_string(size) +
                                    " bytes, tensor_meta of '" + fqn + "' needs " +
                                    std::to_string(needed));
    }
    return tensor;
  }

  // One Storage per blob, so tied weights and views alias. Found by the entry's place in the zip's
  // directory: a map by name held a copy of every blob's name while the
  // index was built.
  std::shared_ptr<const Storage> blob(const std::string& entry) {
    const std::vector<ZipEntry>& entries = zip_.entries();
    if (blobs_.empty()) blobs_.resize(entries.size());
    std::shared_ptr<const Storage>& slot = blobs_[static_cast<size_t>(&zip_.entry(entry) - entries.data())];
    if (!slot) slot = zip_.storage(entry);
    return slot;
  }

  const ZipContainer& zip_;
  std::string config_entry_;
  std::string directory_;
  std::vector<std::shared_ptr<const Storage>> blobs_;  // by place in zip_.entries(), once one is read
};

}  // namespace

std::map<std::string, TensorData> load_payload_tensors(const ZipContainer& zip,
                                                       const std::string& config_entry,
                                                       const std::string& directory) {
  try {
    return PayloadReader(zip, config_entry, directory).read();
  } catch (const simdjson::simdjson_error& e) {  // every access is checked first; this is a safety net
    fail(ErrorCode::kArchive, zip.describe(config_entry) + ": unexpected JSON: " + simdjson_text(e.error()));
  }
}

}  // namespace pt2onnx::archive
