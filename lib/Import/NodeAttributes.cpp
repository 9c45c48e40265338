//===- NodeAttributes.cpp - reading an ONNX node's attributes -------------===//

#include "NodeAttributes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

namespace autodist::detail {

const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                     llvm::StringRef name) {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t attrInt(const onnx::NodeProto &node, llvm::StringRef name,
                int64_t dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->i() : dflt;
}

float attrFloat(const onnx::NodeProto &node, llvm::StringRef name, float dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->f() : dflt;
}

std::string attrString(const onnx::NodeProto &node, llvm::StringRef name,
                       llvm::StringRef dflt) {
  const onnx::AttributeProto *a = findAttr(node, name);
  return a ? a->s() : dflt.str();
}

std::optional<std::vector<int64_t>> attrInts(const onnx::NodeProto &node,
                                             llvm::StringRef name) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<std::vector<float>> attrFloats(const onnx::NodeProto &node,
                                             llvm::StringRef name) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

std::optional<std::vector<std::string>> attrStrings(const onnx::NodeProto &node,
                                                    llvm::StringRef name) {
  const onnx::AttributeProto *a = findAttr(node, name);
  if (!a)
    return std::nullopt;
  return std::vector<std::string>(a->strings().begin(), a->strings().end());
}

std::string listString(llvm::ArrayRef<int64_t> v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(v, os);
  os << "]";
  return s;
}

} // namespace autodist::detail
