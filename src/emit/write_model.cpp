// write_model: bind initializers to archive tensors, choose embedded or external data, fill,
// serialize, and move the files into place only after everything succeeded.
#include "emit/write_model.h"

#include <unistd.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "common/error.h"
#include "emit/archive_reference.h"
#include "emit/derived_tensors.h"
#include "emit/external_data_writer.h"
#include "emit/output_file.h"
#include "emit/packed_4bit.h"
#include "emit/parallel_copies.h"
#include "emit/serialize_model.h"
#include "emit/tensor_copier.h"
#include "emit/tensor_layout.h"
#include "ir/onnx_dtype.h"
#include "model/lowering.h"

namespace pt2onnx::emit {

namespace {

// Per-tensor protobuf overhead on top of its bytes in the size estimate (tags, length varints
// of raw_data and of the enclosing messages); generous, the limit has its own margin.
constexpr uint64_t kEmbeddedOverheadBytes = 32;
// Embedded weights from this size up are streamed from the archive into the .onnx while it is
// serialized; smaller ones go through raw_data in memory.
constexpr uint64_t kStreamMinBytes = 4096;

struct BoundWeight {
  const onnx::TensorProto* initializer = nullptr;  // written through the graph's mutable_initializer(index)
  int index = 0;  // of the initializer in graph().initializer()
  const archive::TensorData* tensor = nullptr;
  const model::WeightBinding* binding = nullptr;
  TensorLayout layout;

  // "weight 'fc.weight' (initializer 'fc.weight')", for messages (made only for one).
  std::string what() const {
    return std::string(binding->is_constant ? "constant" : "weight") + " '" + binding->fqn + "' (initializer '" +
           binding->initializer + "')";
  }
};

const archive::TensorData* find_tensor(const std::map<std::string, archive::TensorData>& tensors,
                                       const std::string& fqn) {
  auto found = tensors.find(fqn);
  return found == tensors.end() ? nullptr : &found->second;
}

void clear_tensor_data(onnx::TensorProto& tensor) {
  tensor.clear_float_data();
  tensor.clear_int32_data();
  tensor.clear_string_data();
  tensor.clear_int64_data();
  tensor.clear_double_data();
  tensor.clear_uint64_data();
  tensor.clear_raw_data();
  tensor.clear_external_data();
  tensor.clear_data_location();
}

// Checks that a bound weight's archive tensor agrees with its declared initializer (element
// type, shape, bytes inside the storage) and gives it its layout.
void check_bound(BoundWeight& weight) {
  const archive::TensorData& tensor = *weight.tensor;
  // A complex tensor is written as its real pairs, the same bytes (model/lowering.h).
  const bool complex = ir::is_complex(tensor.dtype);
  const std::optional<int32_t> data_type =
      ir::onnx_type_if(complex ? model::complex_component(tensor.dtype) : tensor.dtype);
  if (!data_type)
    fail(ErrorCode::kUnsupported, weight.what() + ": element type " + std::string(ir::dtype_name(tensor.dtype)) +
                                      " has no ONNX tensor type we can write");
  const onnx::TensorProto& initializer = *weight.initializer;
  const std::vector<int64_t> declared_dims(initializer.dims().begin(), initializer.dims().end());
  const bool packed = is_packed_4bit_of(tensor, initializer.data_type(), declared_dims);  // its bytes are the pairs
  if (!packed &&
      (*data_type != initializer.data_type() || declared_dims != model::lowered_dims(tensor.dtype, tensor.sizes)))
    fail(ErrorCode::kArchive, weight.what() + ": the archive holds " + std::string(ir::dtype_name(tensor.dtype)) +
                                  format_dims(tensor.sizes) + " (" + ir::onnx_type_name(*data_type) +
                                  ") but the initializer declares " + ir::onnx_type_name(initializer.data_type()) +
                                  format_dims(declared_dims));
  weight.layout = make_layout(tensor, [&weight] { return weight.what(); });
}

// The tensors of the weights clean-up derived, made again from the archive's as clean-up checked
// they could be.
DerivedTensors derive_all(const std::map<std::string, archive::TensorData>& weights,
                          const std::map<std::string, archive::TensorData>& constants,
                          const std::vector<model::DerivedWeight>& derived) {
  DerivedTensors tensors(weights, constants);
  for (const model::DerivedWeight& weight : derived)
    PT2ONNX_CHECK(tensors.add(weight), ErrorCode::kInternal,
                  "derived weight '" + weight.name + "' cannot be made from '" + weight.source.initializer + "'");
  return tensors;
}

// Pairs each binding (the archive's, then the derived weights') with its declared initializer
// and its archive tensor, and checks that they agree before anything is written.
std::vector<BoundWeight> bind_weights(const model::OnnxModel& model,
                                      const std::map<std::string, archive::TensorData>& weights,
                                      const std::map<std::string, archive::TensorData>& constants,
                                      const DerivedTensors& derived) {
  std::unordered_map<std::string_view, int> initializers;  // name -> index (the first of a name)
  const onnx::GraphProto& graph = model.proto.graph();
  initializers.reserve(static_cast<size_t>(graph.initializer_size()));
  for (int index = 0; index < graph.initializer_size(); ++index)
    initializers.emplace(graph.initializer(index).name(), index);

  std::vector<BoundWeight> bound;
  bound.reserve(model.weights.size() + derived.size());
  auto bind = [&](const model::WeightBinding& binding, const archive::TensorData* tensor) {
    BoundWeight weight;
    weight.binding = &binding;
    auto declared = initializers.find(binding.initializer);
    if (declared == initializers.end())
      fail(ErrorCode::kInternal, weight.what() + ": the graph declares no such initializer");
    weight.index = declared->second;
    weight.initializer = &graph.initializer(weight.index);
    weight.tensor = tensor;
    if (!weight.tensor)
      fail(ErrorCode::kArchive, weight.what() + " is not in the archive's " +
                                    (binding.is_constant ? "constants" : "weights"));
    check_bound(weight);
    bound.push_back(std::move(weight));
  };
  for (const model::WeightBinding& binding : model.weights) {
    // Look where the binding says first; the other map is a fallback so a weight/constant
    // misclassification upstream does not lose a tensor that is there.
    const auto& first = binding.is_constant ? constants : weights;
    const auto& second = binding.is_constant ? weights : constants;
    const archive::TensorData* tensor = find_tensor(first, binding.fqn);
    bind(binding, tensor ? tensor : find_tensor(second, binding.fqn));
  }
  for (const model::WeightBinding& binding : derived.bindings()) bind(binding, &derived.tensors().at(binding.fqn));
  return bound;
}

// Small tensors that lie next to each other in the archive file (torch writes weight_0,
// weight_1, ... in order) are read a window at a time: one pread for dozens of them.
class ArchiveWindow {
 public:
  explicit ArchiveWindow(TensorCopier& copier) : copier_(copier) {}
  // The n bytes at `file_offset`, or null when they are not in a window (too large, past the end).
  const uint8_t* find(uint64_t file_offset, uint64_t n) {
    if (file_offset < begin_ || file_offset > end_ || n > end_ - file_offset) {
      if (n > kWindowBytes) return nullptr;
      if (bytes_.empty()) bytes_.resize(kWindowBytes);
      begin_ = file_offset;
      end_ = file_offset + copier_.read_up_to(file_offset, kWindowBytes, bytes_.data());
      if (n > end_ - file_offset) return nullptr;
    }
    return bytes_.data() + (file_offset - begin_);
  }

 private:
  static constexpr uint64_t kWindowBytes = uint64_t{64} << 10;
  TensorCopier& copier_;
  std::vector<uint8_t> bytes_;
  uint64_t begin_ = 0, end_ = 0;
};

// Tiny weights are serialized from raw_data (one at a time, serialize_model.h): streaming each
// would cost more syscalls than bytes. Puts the weight's layout.nbytes bytes at `dst`. With
// `window`, a contiguous view of an uncompressed entry comes from it, its entry's CRC checked as
// Storage::read would (whole entry: these bytes; a part: the entry first, once).
void fill_raw_data(const BoundWeight& weight, uint8_t* dst, ArchiveWindow* window) {
  if (weight.layout.nbytes == 0) return;
  const archive::Storage& storage = *weight.tensor->storage;
  if (weight.layout.contiguous) {
    const std::optional<uint64_t> file_offset = window ? storage.file_offset() : std::nullopt;
    if (const uint8_t* bytes = file_offset ? window->find(*file_offset + weight.layout.span_begin, weight.layout.nbytes) : nullptr) {
      const archive::EntryCrc* crc = storage.entry_crc();
      if (crc && !crc->done() && weight.layout.span_begin == 0 && weight.layout.nbytes == storage.size())
        crc->check(archive::crc32_update(0, bytes, weight.layout.nbytes));
      else
        storage.verify();
      std::memcpy(dst, bytes, weight.layout.nbytes);
      return;
    }
    storage.read(weight.layout.span_begin, weight.layout.nbytes, dst);  // checks the CRC
    return;
  }
  size_t filled = 0;
  gather_tensor(weight.layout, *weight.tensor->storage, weight.layout.nbytes, [&](const uint8_t* data, size_t n) {
    std::memcpy(dst + filled, data, n);
    filled += n;
  });
}

void reference_external(onnx::TensorProto& initializer, const std::string& location,
                        const ExternalRegion& region) {
  initializer.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto add_entry = [&initializer](const char* key, const std::string& value) {
    onnx::StringStringEntryProto* entry = initializer.add_external_data();
    entry->set_key(key);
    entry->set_value(value);
  };
  add_entry("location", location);
  add_entry("offset", std::to_string(region.offset));
  add_entry("length", std::to_string(region.length));
}

bool goes_external(const BoundWeight& weight, const WriteOptions& options) {
  return weight.layout.nbytes > 0 && weight.layout.nbytes >= options.external_min_bytes;
}

// The data file's path for these options, whether or not it is written.
std::filesystem::path data_path_for(const WriteOptions& options) {
  return options.model_set ? options.model_set->data_path()
                           : options.output.parent_path() / (options.output.filename().string() + ".data");
}

// Whether any weight goes to the data file: external mode was asked for, or the embedded model
// would pass the size limit, and some weight is large enough to leave the .onnx. What it decides
// on the way goes to `warnings`.
bool uses_data_file(const model::OnnxModel& model, std::vector<std::string>& warnings,
                    const std::vector<BoundWeight>& bound, const WriteOptions& options,
                    const std::filesystem::path& data_path) {
  if (options.reference_archive) return false;
  bool external = options.external_data;
  if (!external) {
    // Sized in place: model_byte_size moves fields apart during the call and puts them back.
    uint64_t estimate = model_byte_size(const_cast<onnx::ModelProto&>(model.proto));
    for (const BoundWeight& weight : bound) estimate += weight.layout.nbytes + kEmbeddedOverheadBytes;
    if (estimate > options.embedded_limit_bytes) {
      external = true;
      warnings.push_back("embedded weights would make the model about " + std::to_string(estimate) +
                                     " bytes, over the " + std::to_string(options.embedded_limit_bytes) +
                                     "-byte limit; writing them to external data '" + data_path.string() + "'");
    }
  }
  if (!external) return false;
  for (const BoundWeight& weight : bound)
    if (goes_external(weight, options)) return true;
  warnings.push_back("external data requested, but every weight is under " +
                                 std::to_string(options.external_min_bytes) + " bytes; all are embedded");
  return false;
}

// A data file from an earlier external write of this output would now be unreferenced; users
// would ship it or wonder which model it belongs to.
void remove_stale_data_file(const std::filesystem::path& data_path, const std::optional<FileIdentity>& input,
                            model::Diagnostics& diagnostics) {
  // Only a regular file of ours: never a device, a FIFO, a directory or the input archive.
  std::error_code error;
  const auto status = std::filesystem::symlink_status(data_path, error);
  if (error || status.type() != std::filesystem::file_type::regular) return;
  const std::optional<FileIdentity> found = identity_of(data_path);
  if (found && input && found->device == input->device && found->inode == input->inode) return;
  if (std::filesystem::remove(data_path, error))
    diagnostics.warn(model::Stage::kEmit, "removed stale external data '" + data_path.string() +
                       "' that the new model does not reference");
  else if (error && error != std::errc::no_such_file_or_directory)
    diagnostics.warn(model::Stage::kEmit, "could not remove stale external data '" + data_path.string() + "': " + error.message());
}

// --external-data=archive: the region in the archive of every weight that leaves the .onnx (by
// index into `bound`), or a refusal naming the first that cannot be referenced.
std::map<size_t, ExternalRegion> archive_regions(const std::vector<BoundWeight>& bound, const WriteOptions& options) {
  std::map<size_t, ExternalRegion> regions;
  std::string first;
  size_t refused = 0;
  for (size_t i = 0; i < bound.size(); ++i) {
    if (!goes_external(bound[i], options)) continue;
    const std::string reason = unreferenceable_reason(*bound[i].tensor, bound[i].layout);
    if (reason.empty()) {
      regions.emplace(i, archive_region(*bound[i].tensor, bound[i].layout));
    } else if (refused++ == 0) {
      first = bound[i].what() + ": " + reason;
    }
  }
  if (refused > 0)
    fail(ErrorCode::kUsage, "--external-data=archive cannot reference " + first +
                                (refused > 1 ? " (and " + std::to_string(refused - 1) + " more weights)" : "") + "; " +
                                kArchiveFallback);
  return regions;
}

// The files one write makes, created before any weight is read (an unwritable directory fails
// fast), and the writer of its external data, own or the set's.
class OutputFiles {
 public:
  OutputFiles(const archive::Archive& archive, const WriteOptions& options, bool use_data_file,
              const std::filesystem::path& data_path)
      : model_file(std::make_unique<TempOutputFile>(options.output)) {
    if (use_data_file && !options.model_set) data_file.emplace(data_path);
    copier.emplace(archive.path());
    copies.emplace(*copier, archive.path());
    if (data_file) own_writer_.emplace(data_file->fd(), data_path);
    data_writer = own_writer_ ? &*own_writer_ : use_data_file && options.model_set ? &options.model_set->data_writer() : nullptr;
    written_before = data_writer ? data_writer->bytes_written() : 0;
  }

  std::unique_ptr<TempOutputFile> model_file;
  std::optional<TempOutputFile> data_file;
  std::optional<TensorCopier> copier;
  std::optional<ParallelCopies> copies;       // the weights streamed into either file
  ExternalDataWriter* data_writer = nullptr;  // null: no data file
  uint64_t written_before = 0;                // by the set's writer, before this model

 private:
  std::optional<ExternalDataWriter> own_writer_;
};

// Errors while copying a weight say which one.
template <typename Action>
void for_weight(const BoundWeight& weight, Action&& action) {
  try {
    action();
  } catch (const Error& error) {
    throw error.with_context(weight.what());
  }
}

// Progress counts every weight's bytes once, whether embedded, streamed or external; the copies
// report theirs through ParallelCopies::run, on this thread too.
class Progress {
 public:
  Progress(const std::vector<BoundWeight>& bound, const WriteOptions& options) : on_progress_(options.on_progress) {
    for (const BoundWeight& weight : bound) total_ += static_cast<int64_t>(weight.layout.nbytes);
  }
  void add(const BoundWeight& weight) { add_bytes(weight.layout.nbytes); }
  void add_bytes(uint64_t bytes) {
    done_ += static_cast<int64_t>(bytes);
    if (on_progress_) on_progress_(done_, total_);
  }

 private:
  const std::function<void(int64_t, int64_t)>& on_progress_;
  int64_t total_ = 0, done_ = 0;
};

// Queues the copy of a weight's bytes to `offset` of `fd`.
void queue_copy(ParallelCopies& copies, const BoundWeight& weight, int fd, uint64_t offset,
                const std::filesystem::path& shown_path) {
  copies.add(fd, offset, weight.layout.nbytes, [&weight, fd, offset, &shown_path](TensorCopier& copier) {
    for_weight(weight, [&] { copier.copy(*weight.tensor, weight.layout, fd, offset, shown_path); });
  });
}

// Where each weight went: referenced in the archive or written to the data file now, or left
// for the serializer (embedded, by initializer index).
struct Placement {
  DeferredRawData deferred;
  std::vector<const BoundWeight*> embedded;  // by initializer index; null: not embedded
  uint64_t embedded_bytes = 0, referenced_bytes = 0;
};

Placement place_weights(onnx::GraphProto& graph, const std::vector<BoundWeight>& bound,
                        const std::map<size_t, ExternalRegion>& in_archive, const std::string& location,
                        const std::string& data_name, OutputFiles& files, const WriteOptions& options,
                        Progress& progress) {
  ModelSet* const set = options.model_set;
  Placement placed;
  placed.embedded.resize(static_cast<size_t>(graph.initializer_size()));
  for (size_t i = 0; i < bound.size(); ++i) {
    const BoundWeight& weight = bound[i];
    if (const auto region = in_archive.find(i); region != in_archive.end()) {
      // Another model's weight with the same bytes: reference its entry (the same offset in each .onnx).
      std::optional<ExternalRegion> same = set ? set->find_same(*weight.tensor, weight.layout, true) : std::nullopt;
      if (!same && set) set->remember(*weight.tensor, weight.layout, true, region->second);
      reference_external(*graph.mutable_initializer(weight.index), location, same ? *same : region->second);
      placed.referenced_bytes += region->second.length;
      progress.add(weight);
      continue;
    }
    if (files.data_writer && goes_external(weight, options)) {
      std::optional<ExternalRegion> placed_at;  // a new region, whose bytes are copied
      for_weight(weight, [&] {
        std::optional<ExternalRegion> same = set ? set->find_same(*weight.tensor, weight.layout, false) : std::nullopt;
        if (!same) {
          same = files.data_writer->place(*weight.tensor, weight.layout);
          if (!same->reused) placed_at = same;
          if (set && !same->reused) set->remember(*weight.tensor, weight.layout, false, *same);
        }
        reference_external(*graph.mutable_initializer(weight.index), data_name, *same);
      });
      if (placed_at)
        queue_copy(*files.copies, weight, files.data_writer->fd(), placed_at->offset, files.data_writer->shown_path());
      else
        progress.add(weight);
      continue;
    }
    (weight.layout.nbytes < kStreamMinBytes ? placed.deferred.filled : placed.deferred.streamed)[weight.index] =
        weight.layout.nbytes;
    placed.embedded[static_cast<size_t>(weight.index)] = &weight;
    placed.embedded_bytes += weight.layout.nbytes;
  }
  return placed;
}

// The window serves the tiny weights when they come in file order (as torch writes them) in the
// order they are filled, the initializers'; in another order each would read a window for one
// tensor.
bool filled_in_file_order(const Placement& placed) {
  uint64_t last_offset = 0;
  for (const auto& [index, nbytes] : placed.deferred.filled) {
    const BoundWeight& weight = *placed.embedded[static_cast<size_t>(index)];
    const std::optional<uint64_t> offset = weight.tensor->storage->file_offset();
    if (!offset) continue;
    if (*offset + weight.layout.span_begin < last_offset) return false;
    last_offset = *offset + weight.layout.span_begin;
  }
  return true;
}

// Names the files: data first, so that once the model appears under its final name, what it
// references is complete; with a set, the set names them after all its models.
void commit_files(OutputFiles& files, const std::filesystem::path& data_path, const std::optional<FileIdentity>& input,
                  const WriteOptions& options, model::Diagnostics& diagnostics) {
  if (options.model_set) {
    options.model_set->hold(std::move(files.model_file));
    return;
  }
  if (files.data_file) files.data_file->commit();
  try {
    files.model_file->commit();
  } catch (const Error&) {
    if (files.data_file) ::unlink(data_path.c_str());
    throw;
  }
  if (!files.data_file) remove_stale_data_file(data_path, input, diagnostics);
}

}  // namespace

OutputPlan plan_outputs(const model::OnnxModel& model, const std::map<std::string, archive::TensorData>& weights,
                        const std::map<std::string, archive::TensorData>& constants,
                        const std::vector<model::DerivedWeight>& derived, const WriteOptions& options) {
  const DerivedTensors derived_tensors = derive_all(weights, constants, derived);
  const std::vector<BoundWeight> bound = bind_weights(model, weights, constants, derived_tensors);
  OutputPlan plan;
  const std::filesystem::path data_path = data_path_for(options);
  if (uses_data_file(model, plan.warnings, bound, options, data_path)) plan.data_file = data_path;
  return plan;
}

WriteResult write_model(model::OnnxModel& model, const archive::Archive& archive,
                        const std::map<std::string, archive::TensorData>& weights,
                        const std::map<std::string, archive::TensorData>& constants,
                        const std::vector<model::DerivedWeight>& derived, const WriteOptions& options,
                        model::Diagnostics& diagnostics) {
  const DerivedTensors derived_tensors = derive_all(weights, constants, derived);
  const std::vector<BoundWeight> bound = bind_weights(model, weights, constants, derived_tensors);
  onnx::GraphProto& graph = *model.proto.mutable_graph();
  for (const BoundWeight& weight : bound) clear_tensor_data(*graph.mutable_initializer(weight.index));

  const std::filesystem::path data_path = data_path_for(options);
  std::vector<std::string> decided;
  const bool use_data_file = uses_data_file(model, decided, bound, options, data_path);
  for (std::string& warning : decided) diagnostics.warn(model::Stage::kEmit, std::move(warning));
  // Refusals of --external-data=archive come before any file is created.
  std::string location;
  std::map<size_t, ExternalRegion> in_archive;
  if (options.reference_archive) {
    location = archive_location(archive.path(), options.output);
    in_archive = archive_regions(bound, options);
  }
  // The input must survive, whatever name or link the outputs reach it by.
  const std::optional<FileIdentity> input = identity_of(archive.path());
  check_output_path(options.output, input);
  if (use_data_file) check_output_path(data_path, input, "external data");

  OutputFiles files(archive, options, use_data_file, data_path);
  Progress progress(bound, options);
  const ParallelCopies::Copied copied = [&progress](uint64_t bytes) { progress.add_bytes(bytes); };
  // A step that fails while copies are queued fails after them in the order errors are reported
  // in: they run first, and an error of theirs is the one reported.
  auto after_queued = [&](auto&& step) {
    try {
      return step();
    } catch (...) {
      files.copies->run(copied);
      throw;
    }
  };
  Placement placed = after_queued([&] {
    return place_weights(graph, bound, in_archive, location, data_path.filename().string(), files, options, progress);
  });

  // Embedded weights are placed while the model is serialized, in initializer order, after the
  // external ones above (of several bad weights, the first in that order is the one reported):
  // the tiny ones filled into raw_data one at a time, the large ones left as holes that
  // ParallelCopies fills, with the external ones, once the rest of the file is written.
  ArchiveWindow window(*files.copier);
  const bool file_order = filled_in_file_order(placed);
  placed.deferred.write_payload = [&](int index, uint64_t offset) {
    queue_copy(*files.copies, *placed.embedded[static_cast<size_t>(index)], files.model_file->fd(), offset,
               options.output);
  };
  placed.deferred.fill = [&](int index, uint8_t* dst) {
    const BoundWeight& weight = *placed.embedded[static_cast<size_t>(index)];
    for_weight(weight, [&] { fill_raw_data(weight, dst, file_order ? &window : nullptr); });
    progress.add(weight);
  };
  after_queued([&] { serialize_model(model.proto, placed.deferred, files.model_file->fd(), options.output); });
  files.copies->run(copied);

  // Checked again: the paths may have changed while the weights were copied.
  check_output_path(options.output, input);
  if (use_data_file) check_output_path(data_path, input, "external data");
  WriteResult result;
  result.external_data = use_data_file ? data_path : std::filesystem::path();
  result.weight_count = static_cast<int64_t>(bound.size());
  result.weight_bytes = static_cast<int64_t>(
      placed.embedded_bytes + (files.data_writer ? files.data_writer->bytes_written() - files.written_before : 0));
  commit_files(files, data_path, input, options, diagnostics);
  result.referenced_bytes = static_cast<int64_t>(placed.referenced_bytes);
  result.archive_location = location;
  return result;
}

}  // namespace pt2onnx::emit
