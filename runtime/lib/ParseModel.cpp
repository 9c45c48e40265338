//===- ParseModel.cpp - ModelProto without the parameters' bytes ----------===//
//
// Walks the wire format of ModelProto -> graph (field 7) -> initializer
// (field 5) -> TensorProto. Every other field is copied as it is, its bytes
// collected per message and merged with the generated parser, so everything
// but the skipped data is parsed exactly as ParseFromArray would.
//
//===----------------------------------------------------------------------===//

#include "autodist/runtime/ParseModel.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <optional>

namespace autodist::rt {

namespace {
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;
using google::protobuf::io::StringOutputStream;
using WFL = google::protobuf::internal::WireFormatLite;

// Field numbers (onnx.proto).
constexpr int kModelGraph = 7, kGraphInitializer = 5, kTensorDataType = 2,
              kTensorFloatData = 4, kTensorRawData = 9;

/// Reads the fields of one message from `in` (to its limit or the end):
/// `handle` may consume a field (returning true after reading its value);
/// the others are copied and merged into `msg` at the end.
template <typename Handler>
bool parseFields(CodedInputStream &in, google::protobuf::MessageLite &msg,
                 Handler handle) {
  std::string rest;
  {
    StringOutputStream restStream(&rest);
    CodedOutputStream out(&restStream);
    while (uint32_t tag = in.ReadTag()) {
      bool handled = false;
      if (!handle(tag, handled))
        return false;
      if (!handled && !WFL::SkipField(&in, tag, &out))
        return false;
    }
    if (!in.ConsumedEntireMessage())
      return false;
  }
  return msg.MergeFromString(rest);
}

/// Runs `parseBody` on the length-delimited field at `in`, with `in`
/// limited to the field's bytes; false when the body fails or the input
/// ends before the field does (a truncated model).
template <typename ParseBody>
bool parseDelimited(CodedInputStream &in, ParseBody parseBody) {
  uint32_t length;
  if (!in.ReadVarint32(&length))
    return false;
  CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
  bool ok = parseBody() && in.BytesUntilLimit() == 0;
  in.PopLimit(limit);
  return ok;
}

/// Whether `tag` is field `number` in its length-delimited form.
bool isDelimited(uint32_t tag, int number) {
  return WFL::GetTagFieldNumber(tag) == number &&
         WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED;
}

bool parseInitializer(CodedInputStream &in, onnx::TensorProto &t,
                      uint64_t minSkippedBytes,
                      std::optional<SkippedBytes> &skipped) {
  // data_type (field 2) precedes the data in serializers' field order; data
  // seen before it is kept.
  bool isFloat = false;
  return parseFields(in, t, [&](uint32_t tag, bool &handled) {
    if (WFL::GetTagFieldNumber(tag) == kTensorDataType &&
        WFL::GetTagWireType(tag) == WFL::WIRETYPE_VARINT) {
      uint32_t type;
      if (!in.ReadVarint32(&type))
        return false;
      isFloat = type == onnx::TensorProto::FLOAT;
      t.set_data_type(static_cast<int32_t>(type));
      handled = true;
      return true;
    }
    if (!isFloat || !(isDelimited(tag, kTensorRawData) ||
                      isDelimited(tag, kTensorFloatData)))
      return true;
    uint32_t length;
    bool isRaw = WFL::GetTagFieldNumber(tag) == kTensorRawData;
    if (!in.ReadVarint32(&length) || (!isRaw && length % sizeof(float)))
      return false;
    if (length < minSkippedBytes) { // small: kept
      std::string bytes;
      if (!in.ReadString(&bytes, static_cast<int>(length)))
        return false;
      if (isRaw) {
        t.set_raw_data(std::move(bytes));
      } else {
        for (size_t i = 0; i + sizeof(float) <= bytes.size();
             i += sizeof(float)) {
          float v;
          std::memcpy(&v, bytes.data() + i, sizeof(float));
          t.add_float_data(v);
        }
      }
    } else {
      if (skipped) // two data fields: malformed
        return false;
      skipped =
          SkippedBytes{static_cast<uint64_t>(in.CurrentPosition()), length};
      if (!in.Skip(static_cast<int>(length)))
        return false;
    }
    handled = true;
    return true;
  });
}

bool parseGraph(CodedInputStream &in, onnx::GraphProto &graph,
                SkippedData &skipped, uint64_t minSkippedBytes) {
  return parseFields(in, graph, [&](uint32_t tag, bool &handled) {
    if (!isDelimited(tag, kGraphInitializer))
      return true;
    onnx::TensorProto &t = *graph.add_initializer();
    std::optional<SkippedBytes> data;
    if (!parseDelimited(
            in, [&] { return parseInitializer(in, t, minSkippedBytes, data); }))
      return false;
    if (data)
      skipped[t.name()] = *data;
    handled = true;
    return true;
  });
}
} // namespace

bool parseModelWithoutWeights(google::protobuf::io::ZeroCopyInputStream &input,
                              onnx::ModelProto &model, SkippedData &skipped,
                              uint64_t minSkippedBytes) {
  CodedInputStream in(&input);
  return parseFields(in, model, [&](uint32_t tag, bool &handled) {
    if (!isDelimited(tag, kModelGraph))
      return true;
    if (!parseDelimited(in, [&] {
          return parseGraph(in, *model.mutable_graph(), skipped,
                            minSkippedBytes);
        }))
      return false;
    handled = true;
    return true;
  });
}

} // namespace autodist::rt
