//===- ImportEmbeddingBag.cpp - nn.EmbeddingBag's Loop, recognized --------===//
//
// PyTorch (TorchScript exporter) writes `nn.EmbeddingBag(mode)(ids)` as
//
//   flat   = Reshape(ids, [-1])
//   starts = Concat(Range(0, ReduceProd(Shape(ids)), Shape(ids)[1]),
//                   [Shape(flat)[0]])                     (one bag per row)
//   ends   = Slice(starts, [1], [INT64_MAX], [0])
//   Loop(Shape(ends)[0]) { i ->
//     ReduceSum|Mean|Max(Gather(W, Slice(flat, starts[i], ends[i], [0])),
//                        [0], keepdims 0) }
//
// findEmbeddingBags matches exactly that (a general Loop stays an error)
// and the Loop imports as `nn.gather` of the rows, reduced over the bag dim:
// the table is read sparsely (SparseAccessOpInterface, as for Parallax) and
// the gradient is the gather's scatter-add. With a 1-D input and explicit
// offsets, `starts` is Concat(offsets, [number of ids]) (or, with
// include_last_offset, the offsets themselves) and the Loop imports as one
// `nn.embedding_bag` of the ids and offsets.
//
//===----------------------------------------------------------------------===//

#include "EmbeddingBag.h"
#include "Importer.h"
#include "nn/NNOps.h"

#include <onnx/onnx_pb.h>

using namespace mlir;

namespace autodist::detail {
namespace {

/// The producers and constants of one (sub)graph, and of the graphs around
/// it (a Loop body reads outer values by name).
class GraphIndex {
public:
  explicit GraphIndex(const onnx::GraphProto &g,
                      const GraphIndex *parent = nullptr)
      : parent(parent) {
    for (const onnx::NodeProto &n : g.node())
      for (const std::string &o : n.output())
        producer[o] = &n;
    for (const onnx::TensorProto &t : g.initializer())
      inits[t.name()] = &t;
  }

  /// The node of type `op` computing `name`, or null.
  const onnx::NodeProto *node(const std::string &name, StringRef op) const {
    auto it = producer.find(name);
    if (it == producer.end())
      return parent ? parent->node(name, op) : nullptr;
    return it->second->op_type() == op ? it->second : nullptr;
  }
  /// Whether this graph itself (not one around it) computes `name`.
  bool produces(const std::string &name) const {
    return producer.count(name) != 0;
  }
  /// `name`, or what a chain of Casts computing it reads.
  std::string skipCasts(std::string name) const {
    while (const onnx::NodeProto *c = node(name, "Cast"))
      name = c->input(0);
    return name;
  }
  /// The integer values of constant `name` (a Constant node or an
  /// initializer).
  std::optional<std::vector<int64_t>> ints(const std::string &name) const {
    const onnx::TensorProto *t = nullptr;
    if (const onnx::NodeProto *c = node(name, "Constant")) {
      if (const onnx::AttributeProto *v = findAttr(*c, "value");
          v && v->has_t())
        t = &v->t();
    } else if (auto it = inits.find(name); it != inits.end()) {
      t = it->second;
    } else if (!producer.count(name) && parent) {
      return parent->ints(name);
    }
    if (!t || (t->data_type() != onnx::TensorProto::INT64 &&
               t->data_type() != onnx::TensorProto::INT32))
      return std::nullopt;
    return readInts(*t).values;
  }
  bool isInts(const std::string &name, std::vector<int64_t> want) const {
    std::optional<std::vector<int64_t>> v = ints(name);
    return v && *v == want;
  }
  /// Node `n`'s axes (attribute, or constant input `i` from `since`).
  bool hasAxes(const onnx::NodeProto &n, int i,
               std::vector<int64_t> want) const {
    if (std::optional<std::vector<int64_t>> a = attrInts(n, "axes"))
      return *a == want;
    return n.input_size() > i && isInts(n.input(i), want);
  }
  /// The value `Gather(Shape(x), k)` reads the dim of: x, or "" when `name`
  /// is not that.
  std::string dimOf(const std::string &name, int64_t k) const {
    const onnx::NodeProto *g = node(skipCasts(name), "Gather");
    if (!g || attrInt(*g, "axis", 0) != 0 || !isInts(g->input(1), {k}))
      return "";
    const onnx::NodeProto *s = node(g->input(0), "Shape");
    return s && !findAttr(*s, "start") && !findAttr(*s, "end") ? s->input(0)
                                                               : "";
  }

  std::map<std::string, const onnx::NodeProto *> producer;
  std::map<std::string, const onnx::TensorProto *> inits;
  const GraphIndex *parent;
};

/// `name` = Unsqueeze(Gather(X, iter), [0]): X, or "".
std::string perIteration(const GraphIndex &body, const std::string &name,
                         const std::string &iter) {
  const onnx::NodeProto *u = body.node(name, "Unsqueeze");
  if (!u || !body.hasAxes(*u, 1, {0}))
    return "";
  const onnx::NodeProto *g = body.node(u->input(0), "Gather");
  if (!g || g->input(1) != iter || attrInt(*g, "axis", 0) != 0)
    return "";
  return g->input(0);
}

std::optional<EmbeddingBag> matchLoop(const onnx::NodeProto &loop,
                                      const GraphIndex &outer) {
  const onnx::AttributeProto *attr = findAttr(loop, "body");
  if (loop.input_size() != 2 || loop.output_size() != 1 || !attr ||
      !attr->has_g())
    return std::nullopt;
  const onnx::GraphProto &g = attr->g();
  if (g.input_size() != 2 || g.output_size() != 2)
    return std::nullopt;
  GraphIndex body(g, &outer);
  const std::string &iter = g.input(0).name();
  // The scan output: a reduction over the bag's rows.
  const onnx::NodeProto *red = nullptr;
  EmbeddingBag bag;
  for (auto [op, mode] : {std::pair{"ReduceSum", "sum"},
                          {"ReduceMean", "mean"},
                          {"ReduceMax", "max"}})
    if ((red = body.node(g.output(1).name(), op))) {
      bag.mode = mode;
      break;
    }
  if (!red || attrInt(*red, "keepdims", 1) != 0 || !body.hasAxes(*red, 1, {0}))
    return std::nullopt;
  const onnx::NodeProto *rows = body.node(red->input(0), "Gather");
  if (!rows || attrInt(*rows, "axis", 0) != 0 ||
      body.produces(rows->input(0)) || !outer.inits.count(rows->input(0)))
    return std::nullopt;
  bag.weight = rows->input(0);
  const onnx::NodeProto *sl = body.node(rows->input(1), "Slice");
  if (!sl || sl->input_size() < 4 || body.produces(sl->input(0)) ||
      !body.isInts(sl->input(3), {0}) ||
      (sl->input_size() > 4 && !body.isInts(sl->input(4), {1})))
    return std::nullopt;
  std::string starts = perIteration(body, sl->input(1), iter);
  std::string ends = perIteration(body, sl->input(2), iter);
  if (starts.empty() || ends.empty() || body.produces(starts) ||
      body.produces(ends))
    return std::nullopt;
  // ends = starts[1:]; starts = Concat(bag starts, [number of ids]).
  const onnx::NodeProto *tail = outer.node(ends, "Slice");
  std::optional<std::vector<int64_t>> tailEnd = tail && tail->input_size() >= 4
                                                    ? outer.ints(tail->input(2))
                                                    : std::nullopt;
  if (!tail || tail->input(0) != starts || !outer.isInts(tail->input(1), {1}) ||
      !tailEnd || tailEnd->size() != 1 ||
      (*tailEnd)[0] < std::numeric_limits<int32_t>::max() ||
      !outer.isInts(tail->input(3), {0}))
    return std::nullopt;
  // The trip count: the number of bags.
  if (outer.dimOf(loop.input(0), 0) != ends)
    return std::nullopt;
  const onnx::NodeProto *cat = outer.node(starts, "Concat");
  if (!cat && !outer.producer.count(starts) && !outer.inits.count(starts)) {
    // include_last_offset: the offsets, a graph input, end the bags too.
    bag.ids = sl->input(0);
    bag.offsets = starts;
    bag.includeLastOffset = true;
    return bag;
  }
  if (!cat || cat->input_size() != 2 || attrInt(*cat, "axis", 0) != 0)
    return std::nullopt;
  const onnx::NodeProto *total = outer.node(cat->input(1), "Unsqueeze");
  if (!total || !outer.hasAxes(*total, 1, {0}) ||
      outer.dimOf(total->input(0), 0) != sl->input(0))
    return std::nullopt;
  const onnx::NodeProto *range = outer.node(cat->input(0), "Range");
  if (!range) { // 1-D ids with explicit offsets
    bag.ids = sl->input(0);
    bag.offsets = cat->input(0);
    return bag;
  }
  // 2-D ids, flattened.
  const onnx::NodeProto *flatten = outer.node(sl->input(0), "Reshape");
  if (!flatten || !outer.isInts(flatten->input(1), {-1}))
    return std::nullopt;
  bag.ids = flatten->input(0);
  // Range(0, numel(ids), ids.shape[1]): one bag per row of 2-D ids.
  const onnx::NodeProto *numel =
      outer.node(outer.skipCasts(range->input(1)), "ReduceProd");
  const onnx::NodeProto *shape =
      numel ? outer.node(numel->input(0), "Shape") : nullptr;
  if (!outer.isInts(outer.skipCasts(range->input(0)), {0}) || !shape ||
      shape->input(0) != bag.ids || attrInt(*numel, "keepdims", 1) != 0 ||
      outer.dimOf(range->input(2), 1) != bag.ids)
    return std::nullopt;
  return bag;
}

/// The outer-graph values `graph`'s nodes read, nested subgraphs included.
void readsOf(const onnx::NodeProto &node, std::set<std::string> &out) {
  for (const std::string &i : node.input())
    out.insert(i);
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.has_g())
      for (const onnx::NodeProto &n : a.g().node())
        readsOf(n, out);
}

FailureOr<Value> importLoop(NodeImporter &n) {
  const EmbeddingBag *bag = n.embeddingBag();
  if (!bag) {
    n.error() << "a general Loop is not supported: only PyTorch's "
                 "nn.EmbeddingBag export (a Loop over bags that gathers and "
                 "reduces each bag's rows) is recognized";
    return failure();
  }
  FailureOr<Value> w = n.value(bag->weight), ids = n.value(bag->ids);
  if (failed(w) || failed(ids))
    return failure();
  OpBuilder &b = n.b;
  if (!bag->offsets.empty()) {
    FailureOr<Value> offsets = n.value(bag->offsets);
    if (failed(offsets))
      return failure();
    return n.build<nn::EmbeddingBagOp>(
        {*w, *ids, *offsets},
        {b.getNamedAttr("mode", b.getStringAttr(bag->mode)),
         b.getNamedAttr("include_last_offset",
                        b.getBoolAttr(bag->includeLastOffset))});
  }
  FailureOr<Value> rows = n.build<nn::GatherOp>(
      {*w, *ids}, {b.getNamedAttr("axis", b.getI64IntegerAttr(0))});
  if (failed(rows))
    return failure();
  SmallVector<NamedAttribute> reduce = {
      b.getNamedAttr("axes", b.getDenseI64ArrayAttr({1})),
      b.getNamedAttr("keepdims", b.getBoolAttr(false))};
  if (bag->mode == "sum")
    return n.build<nn::ReduceSumOp>({*rows}, reduce);
  if (bag->mode == "mean")
    return n.build<nn::ReduceMeanOp>({*rows}, reduce);
  return n.build<nn::ReduceMaxOp>({*rows}, reduce);
}

} // namespace

void findEmbeddingBags(const onnx::GraphProto &graph,
                       std::map<const onnx::NodeProto *, EmbeddingBag> &bags,
                       std::set<const onnx::NodeProto *> &absorbed) {
  GraphIndex outer(graph);
  std::set<std::string> feeding; // what the recognized Loops read
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "Loop")
      continue;
    if (std::optional<EmbeddingBag> bag = matchLoop(node, outer)) {
      bags[&node] = *bag;
      readsOf(node, feeding);
    }
  }
  if (bags.empty())
    return;
  // Backwards from the outputs: a node feeding a recognized Loop is skipped
  // when nothing imported reads it (the Loop itself reads only the table
  // and the ids).
  std::set<std::string> needed;
  for (const onnx::ValueInfoProto &o : graph.output())
    needed.insert(o.name());
  auto upstream = [&](const onnx::NodeProto &n) {
    for (const std::string &o : n.output())
      if (feeding.count(o))
        return true;
    return false;
  };
  for (int i = graph.node_size() - 1; i >= 0; --i) {
    const onnx::NodeProto &node = graph.node(i);
    if (auto it = bags.find(&node); it != bags.end()) {
      needed.insert(it->second.weight);
      needed.insert(it->second.ids);
      if (!it->second.offsets.empty())
        needed.insert(it->second.offsets);
      continue;
    }
    bool used = false;
    for (const std::string &o : node.output())
      used |= needed.count(o) != 0;
    if (!used && upstream(node)) {
      absorbed.insert(&node);
      for (const std::string &i : node.input())
        feeding.insert(i);
      continue;
    }
    readsOf(node, needed);
  }
}

void registerEmbeddingBagOps(OpRegistry &r) {
  r.add({"Loop",
         11,
         {"body"},
         importLoop,
         {},
         {"", "`nn.gather` + `nn.reduce_sum`/`_mean`/`_max`; "
              "`nn.embedding_bag`",
          "the table, sparsely (scatter-add; SparseAccessOpInterface)",
          "only PyTorch's `nn.EmbeddingBag` export (modes sum, mean, max): "
          "the Loop over bags with its bag boundaries is recognized and the "
          "boundary nodes skipped. 2-D ids (one bag per row) import as one "
          "lookup reduced over the bag dim; 1-D ids with per-bag offsets "
          "(also include_last_offset) as `nn.embedding_bag`, the ids and "
          "offsets then graph inputs the runtime batches as one ragged "
          "input. Any other Loop is an error"}});
}

} // namespace autodist::detail
