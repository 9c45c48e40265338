"""PyTorch model families the compiler is tested on (random init, no downloads).

Every builder takes a seed and returns (module, example_inputs, input_names,
dynamic_axes, kind) where kind is "image" (float images, class labels) or
"tokens" (int64 token ids; labels are the next tokens for the causal model,
one class per sequence for the encoders). Dropout is 0 everywhere so that a
training run is deterministic and comparable with the compiled program.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LeNet(nn.Module):
    """A LeNet-style CNN: two conv/BN/ReLU/max-pool stages and two linears."""

    def __init__(self, classes=10, batchnorm=True):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5, padding=2)
        self.bn1 = nn.BatchNorm2d(6) if batchnorm else nn.Identity()
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.bn2 = nn.BatchNorm2d(16) if batchnorm else nn.Identity()
        self.fc1 = nn.Linear(16 * 6 * 6, 64)
        self.fc2 = nn.Linear(64, classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


class EncoderClassifier(nn.Module):
    """nn.TransformerEncoder (GELU, pre-set dims) over token + position
    embeddings, mean-pooled into a linear classifier."""

    def __init__(self, vocab=64, seq=16, d=32, heads=4, layers=2, classes=10):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d,
                                           dropout=0.0, activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        # TransformerEncoder deep-copies one layer, and torch.onnx.export
        # merges initializers with equal values: give each layer its own.
        for lyr in self.encoder.layers:
            for name, p in lyr.named_parameters():
                with torch.no_grad():
                    if "norm" in name:
                        p.add_(0.1 * torch.randn_like(p))
                    else:
                        p.normal_(0.0, 0.1)
        self.head = nn.Linear(d, classes)

    def forward(self, ids):
        h = self.encoder(self.tok(ids) + self.pos)
        return self.head(h.mean(dim=1))


class CausalSelfAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        hd = d // self.heads
        q = q.view(b, t, self.heads, hd).transpose(1, 2)
        k = k.view(b, t, self.heads, hd).transpose(1, 2)
        v = v.view(b, t, self.heads, hd).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))
        mask = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device))
        att = att.masked_fill(~mask, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    """A GPT-style causal decoder: qkv split, causal mask through tril and
    masked_fill, pre-LayerNorm blocks, a head tied to the token embedding."""

    def __init__(self, vocab=64, seq=16, d=32, heads=4, layers=2, tied=True):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList([Block(d, heads) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        if tied:
            self.head.weight = self.tok.weight

    def forward(self, ids):
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device).unsqueeze(0)
        x = self.tok(ids) + self.pos(pos)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def distinct_params(model):
    """torch.onnx.export (torch >= 1.13) merges initializers with equal
    values, which would tie every norm's freshly initialized ones/zeros (and
    layers copied from one prototype) into one trained parameter. Perturbing
    them keeps the ONNX model's parameters those of the module."""
    with torch.no_grad():
        for p in model.parameters():
            if p.numel() > 1 and bool((p == p.flatten()[0]).all()):
                p.add_(0.02 * torch.randn_like(p))


def build(name, seed=0, batch=4, **kw):
    """Returns (module, example_inputs, input_names, dynamic_axes, kind)."""
    model, *rest = _build(name, seed, batch, **kw)
    torch.manual_seed(seed + 1)  # the same perturbation whatever the batch
    distinct_params(model)
    return (model, *rest)


def _build(name, seed, batch, **kw):
    torch.manual_seed(seed)
    if name == "lenet":
        m = LeNet(batchnorm=kw.get("batchnorm", True))
        return m, (torch.randn(batch, 3, 32, 32),), ["x"], {"x": {0: "batch"}}, "image"
    if name == "resnet18":
        import torchvision
        m = torchvision.models.resnet18(num_classes=10)
        return m, (torch.randn(batch, 3, 32, 32),), ["x"], {"x": {0: "batch"}}, "image"
    if name == "transformer":
        m = EncoderClassifier()
        ids = torch.randint(0, 64, (batch, 16))
        return m, (ids,), ["ids"], {"ids": {0: "batch"}}, "classify_tokens"
    if name == "gpt":
        m = GPT(layers=kw.get("layers", 2))
        ids = torch.randint(0, 64, (batch, 16))
        return m, (ids,), ["ids"], {"ids": {0: "batch", 1: "seq"}}, "tokens"
    if name == "bert":
        from transformers import BertConfig, BertForSequenceClassification
        cfg = BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2,
                         num_attention_heads=4, intermediate_size=64,
                         max_position_embeddings=32, num_labels=10,
                         hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        m = BertForSequenceClassification(cfg)
        ids = torch.randint(0, 64, (batch, 16))

        class Logits(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, ids):
                return self.inner(input_ids=ids).logits
        # Token 0 is BERT's padding_idx: torch never trains that embedding
        # row, and ONNX's Gather has no such notion, so the data avoids it.
        return Logits(m), (ids,), ["ids"], {"ids": {0: "batch"}}, "classify_tokens_nopad"
    raise ValueError(f"unknown model {name!r}")


def make_data(kind, n, seed):
    """Inputs and labels for n samples, as numpy arrays named for the model."""
    g = torch.Generator().manual_seed(seed)
    if kind == "image":
        x = torch.randn(n, 3, 32, 32, generator=g)
        return {"x": x.numpy(), "labels": torch.randint(0, 10, (n,), generator=g).numpy()}
    ids = torch.randint(1 if kind.endswith("_nopad") else 0, 64, (n, 16), generator=g)
    if kind == "tokens":
        # Next-token prediction on a learnable pattern: label = (id + 1) % 64.
        return {"ids": ids.numpy(), "labels": ((ids + 1) % 64).numpy()}
    return {"ids": ids.numpy(), "labels": torch.randint(0, 10, (n,), generator=g).numpy()}
