#!/usr/bin/env python3
"""A plain-PyTorch fine-tuning loop whose glue code has the three optimizations of glueprof's
reference trainer as flags: profile it with `glueprof profile`, A/B a flag with `glueprof ab --exec`.

A small decoder (random weights, no download) trains on synthetic packed batches: several
sequences share each row, so every attention needs a block-diagonal causal mask and position ids
that restart at each sequence. Its glue:

  --packed-cache     build the packed mask and position ids once per batch, not in every layer
                     (and every recompute); the `build_packed_mask` range counts the builds
  --moe-group-once   route the MoE tokens with one stable argsort and one bincount per layer,
                     not one nonzero() (a host read) per expert; range `moe_routing`
  --double-buffer    with --offload: reload a layer's offloaded activations while the backward of
                     the layer after it still runs (the reload of layer i-1 issued at layer i),
                     not each just before it is needed; ranges `offload`, `reload`, `wait_reload`

Each flag changes only the order and number of glue operations: the losses are bit-identical on
and off (same seed). The loss goes to glueprof when it runs the program (glueprof.record_loss).

  glueprof profile -- python3 examples/python/packed_glue_train.py --steps 6
  glueprof ab --exec "python3 examples/python/packed_glue_train.py --steps 6" \
      --optimized-args=--packed-cache --target build_packed_mask
"""
import argparse
import math
import time

import torch
import torch.nn.functional as F
from torch.profiler import record_function

try:
    from glueprof import record_loss
except ImportError:  # not run by glueprof: nothing to tell

    def record_loss(loss):
        pass


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq-len", type=int, default=256, help="tokens per packed row")
    p.add_argument("--batch", type=int, default=2, help="packed rows per batch")
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--experts", type=int, default=0, help="MoE experts per layer (0: dense MLP)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.add_argument("--packed-cache", action="store_true")
    p.add_argument("--moe-group-once", action="store_true")
    p.add_argument("--offload", action="store_true",
                   help="offload each layer's saved activations to host memory in forward")
    p.add_argument("--double-buffer", action="store_true",
                   help="with --offload: prefetch the previous layer's reload")
    p.add_argument("--step-times", metavar="FILE",
                   help="write each step's wall time in seconds, one per line (the bench reads it)")
    p.add_argument("--torch-profiler", action="store_true",
                   help="run under torch.profiler (CPU activities): the bench's peer")
    p.add_argument("--print-losses", action="store_true")
    args = p.parse_args(argv)
    if args.double_buffer:
        args.offload = True
    return args


# ---- packed batches ----------------------------------------------------------------------------

def packed_batch(generator, args):
    """Tokens [B, L] and cu_seqlens per row: sequences of random lengths packed back to back."""
    tokens = torch.randint(0, args.vocab, (args.batch, args.seq_len + 1), generator=generator)
    cu_seqlens = []
    for _ in range(args.batch):
        bounds = [0]
        while bounds[-1] < args.seq_len:
            length = int(torch.randint(8, args.seq_len // 2, (1,), generator=generator))
            bounds.append(min(args.seq_len, bounds[-1] + length))
        cu_seqlens.append(torch.tensor(bounds, dtype=torch.int32))
    return tokens[:, :-1], tokens[:, 1:], cu_seqlens


def build_packed_mask(cu_seqlens, seq_len, device):
    """The block-diagonal causal mask [B, 1, L, L] and position ids [B, L] of packed rows."""
    with record_function("build_packed_mask"):
        masks = []
        positions = []
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
        for bounds in cu_seqlens:
            lengths = (bounds[1:] - bounds[:-1]).tolist()  # a host read, as real packing code does
            segment = torch.repeat_interleave(
                torch.arange(len(lengths), device=device),
                torch.tensor(lengths, device=device))
            masks.append((segment[:, None] == segment[None, :]) & causal)
            starts = torch.repeat_interleave(bounds[:-1].to(device).long(),
                                             torch.tensor(lengths, device=device))
            positions.append(torch.arange(seq_len, device=device) - starts)
        return torch.stack(masks)[:, None], torch.stack(positions)


# ---- the model ---------------------------------------------------------------------------------

def rotary(x, positions):
    half = x.shape[-1] // 2
    freq = 1.0 / (10000 ** (torch.arange(half, device=x.device, dtype=x.dtype) / half))
    angle = positions[:, None, :, None].to(x.dtype) * freq
    cos, sin = angle.cos(), angle.sin()
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class MoE(torch.nn.Module):
    def __init__(self, d, experts, group_once):
        super().__init__()
        self.router = torch.nn.Linear(d, experts, bias=False)
        self.experts = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(d, 2 * d), torch.nn.GELU(), torch.nn.Linear(2 * d, d))
            for _ in range(experts))
        self.group_once = group_once

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        gate, expert = F.softmax(self.router(x), dim=-1).max(dim=-1)
        with record_function("moe_routing"):
            if self.group_once:
                # one stable sort by expert and one bincount: tokens of an expert stay in order
                order = torch.argsort(expert, stable=True)
                counts = torch.bincount(expert, minlength=len(self.experts)).tolist()
                groups = list(torch.split(order, counts))
            else:
                groups = [(expert == e).nonzero().squeeze(1) for e in range(len(self.experts))]
        out = torch.zeros_like(x)
        for e, index in enumerate(groups):
            if index.numel() == 0:
                continue
            y = self.experts[e](x.index_select(0, index)) * gate.index_select(0, index)[:, None]
            out.index_add_(0, index, y)
        return out.reshape(shape)


class Layer(torch.nn.Module):
    def __init__(self, args):
        super().__init__()
        d = args.d_model
        self.heads = args.heads
        self.norm1 = torch.nn.RMSNorm(d)
        self.qkv = torch.nn.Linear(d, 3 * d, bias=False)
        self.proj = torch.nn.Linear(d, d, bias=False)
        self.norm2 = torch.nn.RMSNorm(d)
        if args.experts > 0:
            self.mlp = MoE(d, args.experts, args.moe_group_once)
        else:
            self.mlp = torch.nn.Sequential(
                torch.nn.Linear(d, 4 * d), torch.nn.GELU(), torch.nn.Linear(4 * d, d))

    def forward(self, x, mask, positions):
        b, length, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, length, 3, self.heads, d // self.heads).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        q, k = rotary(q, positions), rotary(k, positions)
        attention = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        x = x + self.proj(attention.transpose(1, 2).reshape(b, length, d))
        return x + self.mlp(self.norm2(x))


class Offloader:
    """Saved activations of each layer to host memory in forward, back in backward (a reload per
    saved tensor); double-buffered, the reload of layer i-1 is issued when layer i's first is."""

    def __init__(self, device, double_buffer):
        self.device = device
        self.double_buffer = double_buffer
        self.saved = {}  # layer -> host copies, in the order saved
        self.prefetched = {}  # (layer, k) -> reloaded tensor

    def hooks(self, layer):
        self.saved[layer] = []

        def pack(tensor):
            if isinstance(tensor, torch.nn.Parameter) or (tensor.requires_grad and tensor.is_leaf):
                return ("kept", tensor)
            with record_function("offload"):
                host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu",
                                   pin_memory=self.device.type == "cuda")
                host.copy_(tensor)
            self.saved[layer].append(host)
            return ("host", layer, len(self.saved[layer]) - 1)

        def unpack(packed):
            if packed[0] == "kept":
                return packed[1]
            _, at, k = packed
            if (at, k) in self.prefetched:
                with record_function("wait_reload"):
                    tensor = self.prefetched.pop((at, k))
            else:
                with record_function("reload"):
                    tensor = self.saved[at][k].to(self.device, non_blocking=True)
                with record_function("wait_reload"):
                    if self.device.type == "cuda":
                        torch.cuda.current_stream().synchronize()
            if self.double_buffer and k == len(self.saved[at]) - 1 and (at - 1) in self.saved:
                with record_function("reload"):
                    for j, host in enumerate(self.saved[at - 1]):
                        self.prefetched[(at - 1, j)] = host.to(self.device, non_blocking=True)
            return tensor

        return torch.autograd.graph.saved_tensors_hooks(pack, unpack)


class Decoder(torch.nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.embed = torch.nn.Embedding(args.vocab, args.d_model)
        self.layers = torch.nn.ModuleList(Layer(args) for _ in range(args.layers))
        self.norm = torch.nn.RMSNorm(args.d_model)
        self.head = torch.nn.Linear(args.d_model, args.vocab, bias=False)

    def forward(self, tokens, cu_seqlens, offloader=None):
        x = self.embed(tokens)
        length = tokens.shape[1]
        cached = build_packed_mask(cu_seqlens, length, x.device) if self.args.packed_cache else None
        for i, layer in enumerate(self.layers):
            mask, positions = cached or build_packed_mask(cu_seqlens, length, x.device)
            if offloader is not None:
                with offloader.hooks(i):
                    x = layer(x, mask, positions)
            else:
                x = layer(x, mask, positions)
        return self.head(self.norm(x))


# ---- the loop ----------------------------------------------------------------------------------

def train(args):
    torch.manual_seed(args.seed)
    device = torch.device(args.device)
    model = Decoder(args).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(args.seed + 1)
    losses = []
    times = []
    for step in range(args.steps):
        started = time.perf_counter()
        tokens, targets, cu_seqlens = packed_batch(generator, args)
        tokens, targets = tokens.to(device), targets.to(device)
        offloader = Offloader(device, args.double_buffer) if args.offload else None
        logits = model(tokens, cu_seqlens, offloader)
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        value = loss.item()
        record_loss(value)
        losses.append(value)
        times.append(time.perf_counter() - started)
    if args.step_times:
        with open(args.step_times, "w") as out:
            out.writelines(f"{t:.9f}\n" for t in times)
    return losses


def main(argv=None):
    args = parse_args(argv)
    torch.use_deterministic_algorithms(True)
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            losses = train(args)
        del prof
    else:
        losses = train(args)
    if args.print_losses:
        print(" ".join(float(loss).hex() for loss in losses))
    assert all(math.isfinite(loss) for loss in losses)


if __name__ == "__main__":
    main()
