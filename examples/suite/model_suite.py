#!/usr/bin/env python3
"""Model suite: real PyTorch model families through autodist-compile.

  model_suite.py --work DIR [--only NAME,...] [--compiler PATH]
      [--markdown FILE] [--json FILE] [--timeout S]

For each model (random init, tiny config, dropout 0, no downloads) it
exports ONNX with PyTorch's TorchScript exporter (opset 14, dynamic batch
axis "batch", no constant folding; a second export in training mode when the
model has BatchNorm), then

  inference  compiles without --input-shape (retrying with the full static
             input shape, recorded as "needs --input-shape"), runs the
             executable on one batch and compares output 0 with PyTorch's
             eval output (relative 1e-4, as test/e2e/check_outputs.py);
  training   compiles with --train --optimizer=sgd (same fallback), runs 5
             steps and compares the per-step losses with 5 torch.optim.SGD
             steps of the same freshly seeded module on the same batches
             (relative 1e-4, as test/e2e/compare_losses.py).

It is a measuring tool: a model the compiler rejects is a result (the
error's first line), not a failure of the script, which exits 0 whatever the
models do (non-zero only for bad flags or a bug of its own). Results are
cached in DIR/NAME/result.json, keyed by this script's contents and the
compiler's mtime, so a second run only redoes what changed.

Run it with an interpreter that has torch, torchvision and transformers
(build/torch-venv/bin/python, see scripts/setup-torch.sh).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "torch"))
import torch_models  # noqa: E402
from make_torch_models import loss_of  # noqa: E402

SEED = 0
STEPS = 5
RTOL = 1e-4
# check_outputs.py's smallest |reference| a difference is divided by, as the
# logits tests set it (test/e2e/torch/gpt.test): near-zero logits sit beside
# large ones, and there the difference is of the large ones' rounding.
FLOOR = 0.1
OPSET = 14
PERTURB = 1e-7
# Batch, learning rate and image side of the training check, unless a model
# says otherwise (where PyTorch against itself is chaotic at these).
DEFAULTS = dict(batch=4, lr=1e-3, side=32, frozen_bn=False)
# Where the trajectory with batch statistics is chaotic in PyTorch itself at
# every setting tried (docs/model-suite.md), the training check runs with
# BatchNorm frozen (eval mode: running statistics, dropout off) on both
# sides: the eval-mode export trained against model.eval() in PyTorch.
FROZEN_BN = dict(frozen_bn=True)


# ---------------------------------------------------------------- models

def torchvision_model(ctor, **kw):
    """A torchvision classifier by constructor name, 10 classes."""
    import torchvision
    return getattr(torchvision.models, ctor)(num_classes=10, **kw)


def vgg11():
    """VGG-11's convolutions; its 25088-input classifier (7x7 adaptive pool
    of a 1x1 map at 32x32) would be 100M parameters, so a small one."""
    m = torchvision_model("vgg11")
    m.avgpool = nn.Identity()
    m.classifier = nn.Sequential(nn.Linear(512, 64), nn.ReLU(inplace=True), nn.Linear(64, 10))
    return m


def densenet():
    """DenseNet's structure (dense blocks, transitions) at a small size:
    densenet121 is 120 layers deep, which only makes the suite slow."""
    from torchvision.models import DenseNet
    return DenseNet(growth_rate=12, block_config=(2, 2, 2, 2), num_init_features=16,
                    num_classes=10)


def vit():
    from torchvision.models import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2,
                             hidden_dim=32, mlp_dim=64, num_classes=10)


def swin():
    """swin_t's blocks (shifted windows, patch merging) at 32x32: 8x8 then
    4x4 tokens, windows of 4."""
    from torchvision.models import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[2, 2],
                           window_size=[4, 4], stochastic_depth_prob=0.0, num_classes=10)


class Logits(nn.Module):
    """A Hugging Face model called on token ids only, returning its logits
    (a single output for the exporter and the compiled loss)."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, ids):
        return self.inner(input_ids=ids).logits


TINY = dict(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
            intermediate_size=64, max_position_embeddings=40, num_labels=10)


def hf_encoder(cls_name, config_name, **kw):
    """A sequence classifier (10 labels). Token 0 is the padding_idx, which
    torch never trains and ONNX's Gather cannot say so: data avoids it."""
    import transformers
    cfg = getattr(transformers, config_name)(**dict(TINY, hidden_dropout_prob=0.0,
                                                    attention_probs_dropout_prob=0.0), **kw)
    return Logits(getattr(transformers, cls_name)(cfg)), "classify_tokens_nopad"


def distilbert():
    from transformers import DistilBertConfig, DistilBertForSequenceClassification
    cfg = DistilBertConfig(vocab_size=64, dim=32, n_layers=2, n_heads=2, hidden_dim=64,
                           max_position_embeddings=40, num_labels=10, dropout=0.0,
                           attention_dropout=0.0, seq_classif_dropout=0.0)
    return Logits(DistilBertForSequenceClassification(cfg)), "classify_tokens_nopad"


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(vocab_size=64, n_positions=40, n_embd=32, n_layer=2, n_head=2,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
    return Logits(GPT2LMHeadModel(cfg)), "tokens"


def hf_decoder(cls_name, config_name, **kw):
    """A causal LM (next-token logits) in the Llama style: RMSNorm, rotary
    positions, SwiGLU, one key/value head per query head."""
    import transformers
    cfg = getattr(transformers, config_name)(
        vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=40,
        attention_dropout=0.0, use_cache=False, **kw)
    return Logits(getattr(transformers, cls_name)(cfg)), "tokens"


def hf_causal(cls_name, config_name, **kw):
    """A causal LM of another HF family at a tiny config (its own config
    field names), no dropout, no cache."""
    def make():
        import transformers
        cfg = getattr(transformers, config_name)(use_cache=False, **kw)
        return Logits(getattr(transformers, cls_name)(cfg)), "tokens"
    return make


class T5Classifier(nn.Module):
    """T5's encoder (relative position buckets, RMS-style T5LayerNorm),
    mean-pooled into a linear classifier."""

    def __init__(self):
        super().__init__()
        from transformers import T5Config, T5EncoderModel
        cfg = T5Config(vocab_size=64, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_heads=2,
                       dropout_rate=0.0, relative_attention_num_buckets=8,
                       relative_attention_max_distance=16, use_cache=False)
        self.encoder = T5EncoderModel(cfg)
        self.head = nn.Linear(32, 10)

    def forward(self, ids):
        return self.head(self.encoder(input_ids=ids).last_hidden_state.mean(dim=1))


class RNNClassifier(nn.Module):
    """nn.LSTM or nn.GRU (batch_first) over token embeddings; the last
    step's hidden state goes to a linear classifier. With layers=2 and
    bidirectional the exporter reshapes the first layer's [T, 2, B, H]
    output to the second's [T, B, 2 H] input with a copied batch dim."""

    def __init__(self, rnn, layers=1, bidirectional=False):
        super().__init__()
        self.emb = nn.Embedding(64, 32)
        hidden = 16 if bidirectional else 32
        self.rnn = rnn(32, hidden, num_layers=layers, batch_first=True,
                       bidirectional=bidirectional)
        self.head = nn.Linear(32, 10)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return self.head(out[:, -1])


class BagRecommender(nn.Module):
    """The recommender pattern: an EmbeddingBag (sum, mean or max) over item
    ids, one bag per row, then a linear scorer over 10 classes."""

    def __init__(self, mode="sum"):
        super().__init__()
        self.bag = nn.EmbeddingBag(64, 32, mode=mode)
        self.head = nn.Linear(32, 10)

    def forward(self, ids):
        return self.head(self.bag(ids))


def image(make):
    return lambda: (make(), "image")


def like(cfg, make):
    """A maker with its own training settings (see DEFAULTS)."""
    make.settings = cfg
    return make


def classify_tokens(make):
    return lambda: (make(), "classify_tokens")


# name -> (family, maker returning (module, kind)); None: torch_models.build.
# At 32x32 the last BatchNorms of ResNet-18 and EfficientNet-B0 normalize 4
# values per channel, and PyTorch against itself from weights changed by 1e-7
# differs by 7e-2 (resnet18) and 0.5 (efficientnet_b0) within 5 SGD steps;
# at 64x64 and these settings by 2e-7 and 1.5e-6.
MODELS = {
    "resnet18": ("torchvision", like(dict(side=64), image(lambda: torchvision_model("resnet18")))),
    "vgg11": ("torchvision", image(vgg11)),
    "densenet": ("torchvision", image(densenet)),
    "squeezenet1_1": ("torchvision", image(lambda: torchvision_model("squeezenet1_1"))),
    "mobilenet_v2": ("torchvision", like(FROZEN_BN, image(lambda: torchvision_model("mobilenet_v2")))),
    "mobilenet_v3_small": ("torchvision", image(lambda: torchvision_model("mobilenet_v3_small"))),
    "shufflenet_v2_x0_5": ("torchvision", like(dict(side=64, batch=8, lr=1e-4), image(
        lambda: torchvision_model("shufflenet_v2_x0_5")))),
    "efficientnet_b0": ("torchvision", like(dict(side=64, batch=8, lr=1e-4),
                                            image(lambda: torchvision_model("efficientnet_b0")))),
    "regnet_y_400mf": ("torchvision", like(FROZEN_BN, image(lambda: torchvision_model("regnet_y_400mf")))),
    "convnext_tiny": ("torchvision", image(lambda: torchvision_model("convnext_tiny"))),
    "vit": ("torchvision", image(vit)),
    "swin": ("torchvision", image(swin)),
    "gpt2": ("transformers", gpt2),
    "bert": ("transformers", None),
    "distilbert": ("transformers", distilbert),
    "roberta": ("transformers", lambda: hf_encoder("RobertaForSequenceClassification",
                                                   "RobertaConfig", pad_token_id=0)),
    "t5_encoder": ("transformers", classify_tokens(T5Classifier)),
    "llama": ("transformers", lambda: hf_decoder("LlamaForCausalLM", "LlamaConfig")),
    "mistral": ("transformers", lambda: hf_decoder("MistralForCausalLM", "MistralConfig",
                                                   sliding_window=16)),
    # Families beyond the list, as a new user brings them.
    "googlenet": ("torchvision", like(FROZEN_BN, image(lambda: torchvision_model(
        "googlenet", aux_logits=False, init_weights=True)))),
    "mobilenet_v3_large": ("torchvision", image(lambda: torchvision_model("mobilenet_v3_large"))),
    "opt": ("transformers", hf_causal(
        "OPTForCausalLM", "OPTConfig", vocab_size=64, hidden_size=32, num_hidden_layers=2,
        ffn_dim=64, num_attention_heads=2, max_position_embeddings=40, word_embed_proj_dim=32,
        dropout=0.0, attention_dropout=0.0)),
    "bloom": ("transformers", hf_causal(
        "BloomForCausalLM", "BloomConfig", vocab_size=64, hidden_size=32, n_layer=2, n_head=2,
        hidden_dropout=0.0, attention_dropout=0.0)),
    "gpt_neox": ("transformers", hf_causal(
        "GPTNeoXForCausalLM", "GPTNeoXConfig", vocab_size=64, hidden_size=32,
        num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=40, hidden_dropout=0.0, attention_dropout=0.0)),
    "phi": ("transformers", hf_causal(
        "PhiForCausalLM", "PhiConfig", vocab_size=64, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=40,
        resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0)),
    "falcon": ("transformers", hf_causal(
        "FalconForCausalLM", "FalconConfig", vocab_size=64, hidden_size=32,
        num_hidden_layers=2, num_attention_heads=2, hidden_dropout=0.0, attention_dropout=0.0)),
    "squeezebert": ("transformers", lambda: hf_encoder(
        "SqueezeBertForSequenceClassification", "SqueezeBertConfig", embedding_size=32)),
    "convbert": ("transformers", lambda: hf_encoder(
        "ConvBertForSequenceClassification", "ConvBertConfig", embedding_size=32)),
    "deberta": ("transformers", lambda: hf_encoder(
        "DebertaForSequenceClassification", "DebertaConfig")),
    "mpnet": ("transformers", lambda: hf_encoder("MPNetForSequenceClassification", "MPNetConfig")),
    "gpt_bigcode": ("transformers", hf_causal(
        "GPTBigCodeForCausalLM", "GPTBigCodeConfig", vocab_size=64, n_embd=32, n_layer=2,
        n_head=2, n_positions=40, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)),
    "persimmon": ("transformers", hf_causal(
        "PersimmonForCausalLM", "PersimmonConfig", vocab_size=64, hidden_size=32,
        num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=40, hidden_dropout=0.0, attention_dropout=0.0)),
    # The last non-padding token's logits, found by ArgMax of the first
    # padding id 0. The data pads every row: without padding transformers
    # 4.36 indexes with -1, which the export's flattened Gather resolves to
    # the previous row's last token (onnxruntime agrees with us there, not
    # with PyTorch eager).
    "gpt2_seqcls": ("transformers", lambda: (hf_encoder(
        "GPT2ForSequenceClassification", "GPT2Config", pad_token_id=0, resid_pdrop=0.0,
        embd_pdrop=0.0, attn_pdrop=0.0)[0], "classify_tokens_rightpad")),
    "ctrl": ("transformers", hf_causal(
        "CTRLLMHeadModel", "CTRLConfig", vocab_size=64, n_embd=32, n_layer=2, n_head=2,
        dff=64, n_positions=40, resid_pdrop=0.0, embd_pdrop=0.0)),
    "lstm": ("torch.nn", classify_tokens(lambda: RNNClassifier(nn.LSTM))),
    "gru": ("torch.nn", classify_tokens(lambda: RNNClassifier(nn.GRU))),
    "bilstm2": ("torch.nn", classify_tokens(lambda: RNNClassifier(nn.LSTM, 2, True))),
    "bigru2": ("torch.nn", classify_tokens(lambda: RNNClassifier(nn.GRU, 2, True))),
    "embedding_bag": ("torch.nn", classify_tokens(BagRecommender)),
    "embedding_bag_mean": ("torch.nn", classify_tokens(lambda: BagRecommender("mean"))),
    "embedding_bag_max": ("torch.nn", classify_tokens(lambda: BagRecommender("max"))),
}


def no_dropout(model):
    """Deterministic training, comparable step by step: every dropout and
    stochastic-depth module drops nothing (torchvision's defaults do)."""
    for m in model.modules():
        if isinstance(m, nn.modules.dropout._DropoutNd) or type(m).__name__ == "StochasticDepth":
            m.p = 0.0


def settings(name):
    return dict(DEFAULTS, **getattr(MODELS[name][1], "settings", {}))


def make_data(kind, n, seed, side):
    """torch_models.make_data, with images of side x side; for
    "classify_tokens_rightpad" token ids 1..63 followed by 1 to 4 padding
    ids 0 per row (a sequence classifier reads the last non-padding token)."""
    if kind == "classify_tokens_rightpad":
        data = torch_models.make_data("classify_tokens_nopad", n, seed)
        ids = data["ids"]
        for i in range(n):
            ids[i, ids.shape[1] - 1 - i % 4:] = 0
        return data
    if kind != "image" or side == 32:
        return torch_models.make_data(kind, n, seed)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, side, side, generator=g)
    return {"x": x.numpy(), "labels": torch.randint(0, 10, (n,), generator=g).numpy()}


def build(name, seed, batch):
    """(module, example_inputs, input_names, dynamic_axes, kind), freshly
    seeded: the same module every call, as torch_models.build."""
    family, make = MODELS[name]
    if make is None:
        return torch_models.build(name, seed, batch)
    torch.manual_seed(seed)
    model, kind = make()
    no_dropout(model)
    torch.manual_seed(seed + 1)
    torch_models.distinct_params(model)
    if settings(name)["frozen_bn"]:
        distinct_statistics(model)
    names = ["x"] if kind == "image" else ["ids"]
    data = make_data(kind, batch, seed, settings(name)["side"])
    example = tuple(torch.from_numpy(data[n]) for n in names)
    return model, example, names, {n: {0: "batch"} for n in names}, kind


def distinct_statistics(model):
    """Running statistics near their initial 0 and 1, each its own: the
    eval-mode export merges equal initializers (all running variances into
    one), which --freeze could then not tell apart."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                m.running_mean.add_(0.02 * torch.randn_like(m.running_mean))
                m.running_var.add_(0.02 * torch.rand_like(m.running_var))


def has_batchnorm(model):
    return any(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in model.modules())


# ---------------------------------------------------------------- checks

def first_line(text):
    """The line that says what went wrong: the first 'error' line of a
    compiler or runtime message, else its first non-empty line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln.lower():
            return ln[:300]
    return lines[0][:300] if lines else "(no message)"


def run_cmd(cmd, timeout):
    """(ok, seconds, message): a subprocess at low priority, its failure
    (exit status, signal or timeout) turned into a one-line message."""
    t0 = time.time()
    try:
        p = subprocess.run(["nice", "-n", "10"] + cmd, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, time.time() - t0, f"timeout after {timeout} s"
    secs = time.time() - t0
    if p.returncode != 0:
        return False, secs, first_line(p.stderr + "\n" + p.stdout)
    return True, secs, ""


def compile_model(a, onnx, out, shapes, extra):
    """Compiles without --input-shape, then with the static shapes. Returns
    (ok, needs_shape, seconds, error line of the last attempt)."""
    base = [a.compiler, onnx, "-o", out, "--quiet"] + extra
    ok, secs, msg = run_cmd(base, a.timeout)
    if ok or msg.startswith("timeout"):
        return ok, False, secs, msg
    flags = [f"--input-shape={n}:{'x'.join(map(str, s))}" for n, s in shapes.items()]
    ok2, secs2, msg2 = run_cmd(base + flags, a.timeout)
    # Without the work directory's path the line reads the same everywhere.
    msg2 = msg2.replace(f"{a.compiler}: ", "").replace(f"{onnx}: ", "")
    return ok2, ok2, secs + secs2, msg2.replace("autodist-compile: ", "")


def export(model, example, names, axes, path, training, keep_batchnorm=False):
    """training: the training-mode export (batch statistics); else eval
    mode, which fuses BatchNorm into the convolutions unless keep_batchnorm
    (PRESERVE of an eval-mode module: BatchNormalization nodes with running
    statistics)."""
    model.train(training)
    mode = torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL
    if keep_batchnorm and not training:
        mode = torch.onnx.TrainingMode.PRESERVE
    torch.onnx.export(model, example, path, input_names=names, output_names=["logits"],
                      opset_version=OPSET, dynamic_axes=dict(axes, logits={0: "batch"}),
                      training=mode, do_constant_folding=False)


def max_rel_outputs(got, ref):
    """check_outputs.py's measure: max |a - b| / max(|b|, floor)."""
    if got.shape != ref.shape:
        raise ValueError(f"shape {list(got.shape)}, PyTorch {list(ref.shape)}")
    if not np.all(np.isfinite(got)):
        return float("inf")
    rel = np.abs(got.astype(np.float64) - ref) / np.maximum(np.abs(ref.astype(np.float64)), FLOOR)
    return float(rel.max()) if rel.size else 0.0


def torch_losses(name, data, names, perturb=0.0):
    """STEPS torch.optim.SGD steps of a fresh module on batches
    [s*B, (s+1)*B), as make_torch_models.py train; perturb multiplies every
    weight by 1 + u, u uniform in [-perturb, perturb] first (its --perturb)."""
    cfg = settings(name)
    model, _, _, _, kind = build(name, SEED, cfg["batch"])
    model.train(not cfg["frozen_bn"])
    g = torch.Generator().manual_seed(SEED + 7)
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(1 + perturb * (2 * torch.rand(p.shape, generator=g) - 1))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
    xs = [torch.from_numpy(data[n]) for n in names]
    y = torch.from_numpy(data["labels"])
    losses = []
    b = cfg["batch"]
    for s in range(STEPS):
        sl = slice(s * b, (s + 1) * b)
        loss = loss_of(kind, model(*[x[sl] for x in xs]), y[sl])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def read_log(path):
    with open(path) as f:
        return {int(o["step"]): float(o["loss"]) for o in map(json.loads, f) if o}


def loss_mismatch(log, ref):
    """compare_losses.py's measure: (max rel, step) over the steps, inf
    where a step is missing or not finite."""
    worst, at = 0.0, None
    for s, b in enumerate(ref, 1):
        a = log.get(s, float("nan"))
        rel = abs(a - b) / max(abs(a), abs(b), 1e-12) if np.isfinite(a) else float("inf")
        if at is None or rel > worst:
            worst, at = rel, s
    return worst, at


def check_inference(a, d, onnx, shapes):
    """The inference part: a status string, needs_shape, compile seconds."""
    exe = os.path.join(d, "model.infer")
    ok, needs, secs, msg = compile_model(a, onnx, exe, shapes, [])
    if not ok:
        return f"compile rejected: {msg}", False, secs
    out = os.path.join(d, "out.npz")
    ok, _, msg = run_cmd([exe, f"--inputs={d}/in.npz", f"--outputs={out}"], a.timeout)
    if not ok:
        return f"run failed: {msg}", needs, secs
    try:
        rel = max_rel_outputs(np.load(out)["logits"], np.load(os.path.join(d, "torch_out.npz"))["logits"])
    except (ValueError, KeyError) as e:
        return f"run failed: {e}", needs, secs
    if rel > RTOL:
        return f"inference mismatch: max rel {rel:.2e}", needs, secs
    return "pass", needs, secs


def running_statistics(path):
    """The running mean and variance initializers of the model's
    BatchNormalization nodes: frozen (--freeze), as PyTorch's buffers in
    eval mode, they keep the ops in inference form."""
    import onnx
    model = onnx.load(path, load_external_data=False)
    return sorted({n.input[i] for n in model.graph.node if n.op_type == "BatchNormalization"
                   for i in (3, 4)})


def check_training(a, d, onnx, shapes, name, names):
    """The training part: a status string, needs_shape, compile seconds."""
    exe = os.path.join(d, "model.train")
    cfg = settings(name)
    extra = ["--train", "--optimizer=sgd"]
    if cfg["frozen_bn"]:
        stats = running_statistics(onnx)
        if stats:
            extra.append("--freeze=" + ",".join(stats))
    ok, needs, secs, msg = compile_model(a, onnx, exe, shapes, extra)
    if not ok:
        return f"compile rejected: {msg}", False, secs
    log = os.path.join(d, "log.jsonl")
    ok, _, msg = run_cmd([exe, f"--data={d}/data.npz", f"--steps={STEPS}",
                          f"--batch-size={cfg['batch']}", f"--lr={cfg['lr']}",
                          f"--log={log}"], a.timeout)
    if not ok:
        return f"run failed: {msg}", needs, secs
    data = np.load(os.path.join(d, "data.npz"))
    ref = torch_losses(name, data, names)
    rel, step = loss_mismatch(read_log(log), ref)
    if rel > RTOL:
        # How chaotic the trajectory is: a compiler cannot follow PyTorch
        # closer than PyTorch follows itself from nearby weights.
        near = dict(enumerate(torch_losses(name, data, names, PERTURB), 1))
        return (f"training mismatch: max rel {rel:.2e} at step {step} (PyTorch against "
                f"itself, weights x(1+-{PERTURB:g}): {loss_mismatch(near, ref)[0]:.2e})"), needs, secs
    return ("pass (BatchNorm frozen)" if cfg["frozen_bn"] else "pass"), needs, secs


def prepare(name, d):
    """Exports the model(s) and writes data.npz, in.npz and torch_out.npz.
    Returns (params, names, shapes, infer_onnx, train_onnx, error)."""
    cfg = settings(name)
    b = cfg["batch"]
    model, example, names, axes, kind = build(name, SEED, b)
    params = sum(p.numel() for p in model.parameters())
    shapes = {n: list(x.shape) for n, x in zip(names, example)}
    data = make_data(kind, STEPS * b, SEED + 1, cfg["side"])
    np.savez(os.path.join(d, "data.npz"), **data)
    inputs = {n: data[n][:b] for n in names}
    np.savez(os.path.join(d, "in.npz"), **inputs)
    infer = os.path.join(d, "model.onnx")
    train = infer
    if has_batchnorm(model):
        train = os.path.join(d, "model.frozen.onnx" if cfg["frozen_bn"] else "model.train.onnx")
    try:
        export(model, example, names, axes, infer, False)
        fresh = build(name, SEED, b)[0].eval()
        with torch.no_grad():
            out = fresh(*[torch.from_numpy(inputs[n]) for n in names])
        np.savez(os.path.join(d, "torch_out.npz"), logits=out.numpy())
        if train != infer:
            export(build(name, SEED, b)[0], example, names, axes, train,
                   not cfg["frozen_bn"], keep_batchnorm=True)
    except Exception as e:  # the exporter's failures are results
        return params, names, shapes, None, None, f"export failed: {first_line(str(e) or repr(e))}"
    return params, names, shapes, infer, train, None


def measure(a, name, d):
    """One model's result record."""
    family = MODELS[name][0]
    params, names, shapes, infer, train, err = prepare(name, d)
    rec = dict(model=name, family=family, params=params)
    if err:
        return dict(rec, inference=err, training=err, status=err, compile_s=[0.0, 0.0])
    istat, ineeds, isecs = check_inference(a, d, infer, shapes)
    tstat, tneeds, tsecs = check_training(a, d, train, shapes, name, names)
    if istat == "pass" and tstat.startswith("pass"):
        status = tstat + (" (needs --input-shape)" if ineeds or tneeds else "")
    else:
        status = istat if istat != "pass" else tstat
    return dict(rec, inference=istat + (" (needs --input-shape)" if ineeds and istat == "pass" else ""),
                training=tstat + (" (needs --input-shape)" if tneeds and tstat.startswith("pass")
                                  else ""),
                status=status, compile_s=[round(isecs, 1), round(tsecs, 1)])


# ---------------------------------------------------------------- driver

def cache_key(compiler):
    with open(os.path.abspath(__file__), "rb") as f:
        version = hashlib.sha256(f.read()).hexdigest()[:16]
    return dict(version=version, compiler=os.path.abspath(compiler),
                compiler_mtime=os.path.getmtime(compiler))


def result_for(a, name, key):
    """The cached record if DIR/NAME/result.json is from this script and
    compiler, else a fresh measurement (written there)."""
    d = os.path.join(a.work, name)
    path = os.path.join(d, "result.json")
    if os.path.exists(path):
        with open(path) as f:
            cached = json.load(f)
        if cached.get("key") == key:
            return cached["result"], True
    os.makedirs(d, exist_ok=True)
    rec = measure(a, name, d)
    with open(path, "w") as f:
        json.dump(dict(key=key, result=rec), f, indent=1)
    return rec, False


def short(status):
    """A table cell: the kind of outcome, the detail is in its own column."""
    return status.split(":")[0]


def markdown(results):
    rows = ["| model | family | params | inference | training | status detail | compile s |",
            "|---|---|---|---|---|---|---|"]
    for r in results:
        detail = r["status"].replace("|", "\\|")
        secs = "{} / {}".format(*r["compile_s"])
        rows.append(f"| {r['model']} | {r['family']} | {r['params']:,} | {short(r['inference'])} "
                    f"| {short(r['training'])} | {detail} | {secs} |")
    return "\n".join(rows) + "\n"


def summary(results):
    passed = [r for r in results if r["status"].startswith("pass")]
    shaped = [r for r in passed if "needs --input-shape" in r["status"]]
    return f"{len(passed)} of {len(results)} models pass ({len(shaped)} need --input-shape)"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--work", required=True, help="directory for models, executables and results")
    p.add_argument("--only", help="comma-separated model names (default: all): " + ",".join(MODELS))
    p.add_argument("--compiler", default=os.path.join(ROOT, "build", "bin", "autodist-compile"))
    p.add_argument("--markdown", help="write the results table (Markdown) here")
    p.add_argument("--json", help="write the results (JSON list) here")
    p.add_argument("--timeout", type=float, default=300, help="seconds per subprocess (default 300)")
    a = p.parse_args()
    a.names = a.only.split(",") if a.only else list(MODELS)
    unknown = [n for n in a.names if n not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {','.join(unknown)}; known: {','.join(MODELS)}")
    if not os.access(a.compiler, os.X_OK):
        p.error(f"compiler {a.compiler} is not an executable")
    return a


def main():
    a = parse_args()
    a.work = os.path.abspath(a.work)
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")  # the exporter's, one screenful per model
    key = cache_key(a.compiler)
    results = []
    t0 = time.time()
    for name in a.names:
        t = time.time()
        rec, cached = result_for(a, name, key)
        results.append(rec)
        took = "cached" if cached else f"{time.time() - t:.0f} s"
        print(f"{name:20s} {rec['status']}  [{took}]", flush=True)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(markdown(results))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    print(f"{summary(results)} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
