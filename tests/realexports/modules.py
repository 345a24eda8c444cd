"""Small torch modules written the way users write them, for the "modules" set of export.py:
each exercises exporter output the torchvision and nn.Transformer models do not (see README.md).

Every builder returns (module, example args, input names, output names, dynamic axes), as
export.py's builders do.
"""

import torch
import torch.nn.functional as F
from torch import nn

BATCH, SEQ = 2, 7


class GptBlock(nn.Module):
    """A GPT-style decoder block: token and position embeddings (Gather, Range over the dynamic
    sequence length), a causal mask from torch.tril and masked_fill (Trilu, Equal, Where),
    attention heads split with view/transpose on sizes read at run time, LayerNorm and GELU."""

    def __init__(self, approximate, vocab=50, width=32, heads=4, max_len=64):
        super().__init__()
        self.token = nn.Embedding(vocab, width)
        self.position = nn.Embedding(max_len, width)
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.fc1, self.fc2 = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.heads, self.approximate = heads, approximate

    def forward(self, ids):
        batch, length = ids.size()
        positions = torch.arange(0, length, dtype=torch.long).unsqueeze(0)
        x = self.token(ids) + self.position(positions)
        y = self.norm1(x)
        width = y.size(-1)
        head_width = width // self.heads
        q, k, v = (t.view(batch, length, self.heads, head_width).transpose(1, 2)
                   for t in self.qkv(y).split(width, dim=2))
        scores = (q @ k.transpose(-2, -1)) * (1.0 / head_width ** 0.5)
        causal = torch.tril(torch.ones(length, length)).view(1, 1, length, length)
        weights = F.softmax(scores.masked_fill(causal == 0, float("-inf")), dim=-1)
        y = (weights @ v).transpose(1, 2).contiguous().view(batch, length, width)
        x = x + self.proj(y)
        x = x + self.fc2(F.gelu(self.fc1(self.norm2(x)), approximate=self.approximate))
        return self.head(x)


def gpt(approximate):
    def make():
        dynamic = {"ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
        return (GptBlock(approximate), (torch.randint(0, 50, (BATCH, SEQ)),), ["ids"],
                ["logits"], dynamic)
    return make


class Audio(nn.Module):
    """A 1-D convolutional stack: Conv1d and a grouped, strided Conv1d without bias, each with
    BatchNorm1d; GroupNorm (exported as Reshape, InstanceNormalization, Reshape) and
    InstanceNorm1d; ConvTranspose1d with BatchNorm1d; nearest upsampling; LeakyReLU, HardSwish."""

    def __init__(self):
        super().__init__()
        self.conv1, self.norm1 = nn.Conv1d(4, 16, 5, padding=2), nn.BatchNorm1d(16)
        self.conv2 = nn.Conv1d(16, 16, 3, stride=2, padding=1, groups=4, bias=False)
        self.norm2 = nn.BatchNorm1d(16)
        self.group_norm, self.instance_norm = nn.GroupNorm(4, 16), nn.InstanceNorm1d(16, affine=True)
        self.up, self.norm3 = nn.ConvTranspose1d(16, 8, 4, stride=2, padding=1), nn.BatchNorm1d(8)
        self.out = nn.Conv1d(8, 2, 1)

    def forward(self, x):
        y = F.relu(self.norm1(self.conv1(x)))
        y = F.leaky_relu(self.norm2(self.conv2(y)), 0.1)
        y = self.instance_norm(self.group_norm(y))
        y = F.hardswish(self.norm3(self.up(y)))
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")
        return torch.tanh(self.out(y))


def audio(dynamic_length):
    def make():
        dynamic = {"x": {0: "batch", 2: "length"}} if dynamic_length else None
        return Audio(), (torch.randn(BATCH, 4, 40),), ["x"], ["y"], dynamic
    return make


class UNet(nn.Module):
    """A small U-Net: Conv + BatchNorm2d + ReLU/ReLU6, max and ceil_mode average pooling,
    ZeroPad2d before a Conv (Pad), bilinear resizing to a skip connection's size read at run time,
    ConvTranspose2d + BatchNorm2d, Concat of skips, PixelShuffle (DepthToSpace), SiLU."""

    def __init__(self, align_corners):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU6())
        self.middle = nn.Sequential(nn.ZeroPad2d((1, 1, 1, 1)), nn.Conv2d(16, 16, 3), nn.SiLU())
        self.up, self.up_norm = nn.ConvTranspose2d(16, 8, 2, stride=2), nn.BatchNorm2d(8)
        self.dec, self.shuffle = nn.Conv2d(16, 12, 3, padding=1), nn.PixelShuffle(2)
        self.final = nn.Conv2d(3, 1, 1)
        self.align_corners = align_corners

    def forward(self, x):
        a = self.enc1(x)
        b = self.enc2(F.max_pool2d(a, 2))
        m = self.middle(F.avg_pool2d(b, 2, ceil_mode=True, count_include_pad=False))
        m = F.interpolate(m, size=b.shape[-2:], mode="bilinear", align_corners=self.align_corners)
        u = self.up_norm(self.up(m + b))
        d = F.relu(self.dec(torch.cat([u, a], 1)))
        return torch.sigmoid(self.final(F.avg_pool2d(self.shuffle(d), 2)))


def unet(align_corners, dynamic_batch):
    def make():
        dynamic = {"x": {0: "batch"}, "y": {0: "batch"}} if dynamic_batch else None
        return UNet(align_corners), (torch.randn(1, 3, 32, 48),), ["x"], ["y"], dynamic
    return make


class Indexing(nn.Module):
    """Index and scan ops next to shape arithmetic: gather, topk, cumsum, where, argmax,
    a reshape to a size computed from the input's shape and a slice of half of it, scatter."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(8, 8)

    def forward(self, x, index):
        y = self.linear(x)
        gathered = torch.gather(y, 1, index)
        top, top_index = torch.topk(y, 3, dim=-1)
        mixed = torch.where(y > 0, y, torch.cumsum(y, dim=1) * 0.5)
        count = y.shape[0] * y.shape[1]
        half = mixed.reshape(count)[: count // 2]
        scattered = torch.scatter(y, 1, index, gathered * 2)
        best = torch.argmax(mixed, dim=-1, keepdim=True)
        return gathered + top.sum(-1, keepdim=True), best.float() + half.sum(), scattered, top_index


def indexing():
    dynamic = {"x": {0: "rows"}, "index": {0: "rows"}}
    return (Indexing(), (torch.randn(4, 8), torch.randint(0, 8, (4, 3))), ["x", "index"],
            ["sums", "best", "scattered", "top_index"], dynamic)


class DoubleHead(nn.Module):
    """In float64: Linear (MatMul + Add over a 3-D input), BatchNorm1d over the middle axis (not
    the Linear's output features: nothing to fuse), ReduceMean, Gemm, LogSoftmax."""

    def __init__(self):
        super().__init__()
        self.linear, self.norm, self.out = nn.Linear(6, 4), nn.BatchNorm1d(4), nn.Linear(4, 3)

    def forward(self, x):
        y = F.relu(self.norm(self.linear(x))).mean(dim=2)
        return F.log_softmax(self.out(y), dim=-1)


def double_head():
    return (DoubleHead().double(), (torch.randn(BATCH, 4, 6, dtype=torch.float64),), ["x"], ["y"],
            {"x": {0: "batch"}})


class Recurrent(nn.Module):
    """A 2-layer bidirectional batch-first LSTM then a GRU, with zero initial states built from
    the dynamic batch size (ConstantOfShape / Expand of zeros)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(32, 8, batch_first=True)

    def forward(self, x):
        batch = x.size(0)
        y, _ = self.lstm(x, (torch.zeros(4, batch, 16), torch.zeros(4, batch, 16)))
        return self.gru(y, torch.zeros(1, batch, 8))


def recurrent_bidirectional():
    return (Recurrent(), (torch.randn(BATCH, 5, 8),), ["x"], ["z", "h"],
            {"x": {0: "batch", 1: "seq"}})


class PaddedAttention(nn.Module):
    """nn.MultiheadAttention (batch first) with a boolean key_padding_mask input, then a residual
    LayerNorm; it returns the averaged attention weights too."""

    def __init__(self):
        super().__init__()
        self.attention, self.norm = nn.MultiheadAttention(16, 4, batch_first=True), nn.LayerNorm(16)

    def forward(self, x, padding):
        y, weights = self.attention(x, x, x, key_padding_mask=padding)
        return self.norm(x + y), weights


class SeparateProjections(nn.Module):
    """Self-attention as Hugging Face's BERT writes it: the query, key and value projections are
    three nn.Linear layers of the same input (three MatMuls and three bias Adds in the export),
    heads split with view/permute, a scaled softmax, then the output projection."""

    def __init__(self, width=32, heads=4):
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(width, width) for _ in range(3))
        self.output, self.heads = nn.Linear(width, width), heads

    def forward(self, x):
        batch, length, width = x.size()
        head_width = width // self.heads

        def heads(t):
            return t.view(batch, length, self.heads, head_width).permute(0, 2, 1, 3)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        weights = F.softmax(q @ k.transpose(-1, -2) / head_width ** 0.5, dim=-1)
        return self.output((weights @ v).permute(0, 2, 1, 3).reshape(batch, length, width))


def separate_projections():
    dynamic = {"x": {0: "batch", 1: "seq"}, "y": {0: "batch", 1: "seq"}}
    return SeparateProjections(), (torch.randn(BATCH, SEQ, 32),), ["x"], ["y"], dynamic


class DetectionHeads(nn.Module):
    """A box head as torchvision's Faster R-CNN writes it: two Linear layers over flattened
    region features, then the class scores and the box deltas, two nn.Linear layers of the same
    features (two Gemms of one input in the export)."""

    def __init__(self, features=48, hidden=32, classes=5):
        super().__init__()
        self.fc6, self.fc7 = nn.Linear(features, hidden), nn.Linear(hidden, hidden)
        self.cls_score, self.bbox_pred = nn.Linear(hidden, classes), nn.Linear(hidden, 4 * classes)

    def forward(self, regions):
        x = F.relu(self.fc7(F.relu(self.fc6(regions.flatten(start_dim=1)))))
        return self.cls_score(x), self.bbox_pred(x)


def detection_heads():
    dynamic = {"regions": {0: "regions"}}
    return (DetectionHeads(), (torch.randn(6, 3, 4, 4),), ["regions"], ["scores", "deltas"],
            dynamic)


def padded_attention():
    padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    dynamic = {"x": {0: "batch", 1: "seq"}, "padding": {0: "batch", 1: "seq"}}
    return (PaddedAttention(), (torch.randn(BATCH, 5, 16), padding), ["x", "padding"],
            ["y", "weights"], dynamic)


@torch.jit.script
def branch_and_loop(x: torch.Tensor, steps: int) -> torch.Tensor:
    y = x
    if bool(x.sum() > 0):
        y = y * 2.0
    else:
        y = y - 1.0
    for step in range(steps):
        y = y + float(step) * 0.5
    return y


class Scripted(nn.Module):
    """A scripted function in a traced module: an If on a data-dependent condition and a Loop
    whose trip count is the input's dynamic first dim."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 6)

    def forward(self, x):
        return branch_and_loop(self.linear(x), x.size(0))


def scripted():
    return Scripted(), (torch.randn(3, 6),), ["x"], ["y"], {"x": {0: "rows"}}
