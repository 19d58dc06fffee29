#!/usr/bin/env python3
"""A Hugging Face transformers model fine-tuned a few steps on packed sequences: third-party glue
for `glueprof profile` to find. A Llama config scaled down to a few layers, random weights (built
from the config: nothing is downloaded), padding-free packing: several documents per row, their
position ids restarting at each document, so transformers builds the block-diagonal mask itself.

  glueprof profile -- python3 examples/python/hf_packed_llama.py --steps 6
"""
import argparse
import time

import torch
import torch.nn.functional as F

try:
    from glueprof import record_loss
except ImportError:  # not run by glueprof

    def record_loss(loss):
        pass


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--kv-heads", type=int, default=2)
    p.add_argument("--seq-len", type=int, default=256)
    p.add_argument("--vocab", type=int, default=1024)
    p.add_argument("--attention", default="sdpa", choices=["sdpa", "eager"])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    p.add_argument("--step-times", metavar="FILE",
                   help="write each step's wall time in seconds, one per line (the bench reads it)")
    p.add_argument("--torch-profiler", action="store_true",
                   help="run under torch.profiler (CPU activities): the bench's peer")
    return p.parse_args(argv)


def packed_row(generator, args):
    """One row of documents back to back: tokens and position ids restarting at each document."""
    tokens = torch.randint(0, args.vocab, (1, args.seq_len + 1), generator=generator)
    positions = []
    while len(positions) < args.seq_len:
        length = int(torch.randint(16, args.seq_len // 2, (1,), generator=generator))
        positions.extend(range(min(length, args.seq_len - len(positions))))
    return tokens[:, :-1], tokens[:, 1:], torch.tensor([positions])


def train(args):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(args.seed)
    config = LlamaConfig(vocab_size=args.vocab, hidden_size=args.hidden,
                         intermediate_size=2 * args.hidden, num_hidden_layers=args.layers,
                         num_attention_heads=args.heads, num_key_value_heads=args.kv_heads,
                         max_position_embeddings=args.seq_len, attn_implementation=args.attention)
    device = torch.device(args.device)
    model = LlamaForCausalLM(config).to(device)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    generator = torch.Generator().manual_seed(args.seed + 1)
    times = []
    for _ in range(args.steps):
        started = time.perf_counter()
        tokens, targets, positions = packed_row(generator, args)
        logits = model(input_ids=tokens.to(device), position_ids=positions.to(device)).logits
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), targets.to(device).reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        record_loss(loss.item())
        times.append(time.perf_counter() - started)
    if args.step_times:
        with open(args.step_times, "w") as out:
            out.writelines(f"{t:.9f}\n" for t in times)


def main(argv=None):
    args = parse_args(argv)
    if args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU]):
            train(args)
    else:
        train(args)


if __name__ == "__main__":
    main()
