// How a storage names itself in messages: the archive file and the entry. Both strings are held
// once and shared: the file's name by the labels of every entry of its zips, the entry's name by
// the zip's directory (zip_container.h). A large model has a weight entry per tensor: a copy of
// the path and of the entry's name each would be a sizeable share of the weights' index.
#pragma once

#include <memory>
#include <string>
#include <utility>

namespace pt2onnx::archive {

struct StorageLabel {
  StorageLabel(std::string file_name, std::string entry_name)
      : file(std::make_shared<const std::string>(std::move(file_name))),
        entry(std::make_shared<const std::string>(std::move(entry_name))) {}
  StorageLabel(std::shared_ptr<const std::string> file_name, std::shared_ptr<const std::string> entry_name)
      : file(std::move(file_name)), entry(std::move(entry_name)) {}

  std::shared_ptr<const std::string> file;  // the archive file, as the user gave it; never null
  // The entry path ("model/data/weights/weight_0"); nested: "outer: inner". Never null.
  std::shared_ptr<const std::string> entry;
  std::string text() const { return entry->empty() ? *file : *file + ": " + *entry; }
};

}  // namespace pt2onnx::archive
