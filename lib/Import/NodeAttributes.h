//===- NodeAttributes.h - reading an ONNX node's attributes -----*- C++ -*-===//
//
// The one place that reads attributes off a NodeProto. Their types were
// checked against the operator schemas before import (ValidateModel.h), so
// reading `i` of an INT attribute is safe here.
//
//===----------------------------------------------------------------------===//
#ifndef AUTODIST_LIB_IMPORT_NODEATTRIBUTES_H
#define AUTODIST_LIB_IMPORT_NODEATTRIBUTES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace onnx {
class AttributeProto;
class NodeProto;
} // namespace onnx

namespace autodist::detail {

/// Attribute `name` of `node`, or null when absent.
const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     llvm::StringRef name);

/// The INT attribute `name`, or `dflt` when absent.
int64_t attrInt(const onnx::NodeProto &node, llvm::StringRef name,
                int64_t dflt);

/// The FLOAT attribute `name`, or `dflt` when absent.
float attrFloat(const onnx::NodeProto &node, llvm::StringRef name, float dflt);

/// The STRING attribute `name`, or `dflt` when absent.
std::string attrString(const onnx::NodeProto &node, llvm::StringRef name,
                       llvm::StringRef dflt);

/// The INTS attribute `name`, or nullopt when absent.
std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto &node,
                                             llvm::StringRef name);

/// The FLOATS attribute `name`, or nullopt when absent.
std::optional<std::vector<float>> attrFloats(const onnx::NodeProto &node,
                                             llvm::StringRef name);

/// The STRINGS attribute `name`, or nullopt when absent.
std::optional<std::vector<std::string>> attrStrings(const onnx::NodeProto &node,
                                                    llvm::StringRef name);

/// `v` as "[1, 2, 3]" (for messages).
std::string listString(llvm::ArrayRef<int64_t> v);

} // namespace autodist::detail

#endif // AUTODIST_LIB_IMPORT_NODEATTRIBUTES_H
