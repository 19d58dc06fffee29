#!/usr/bin/env python3
"""A Hugging Face Mixture-of-Experts model (Mixtral's architecture, scaled down, random weights built
from the config: nothing is downloaded) fine-tuned a few steps: the routing glue of a real MoE for
`glueprof profile` to find. With `--experts eager` (the default here) transformers runs its experts
loop: per layer one nonzero over the experts hit, then per expert a bool read and a torch.where
(another nonzero) — host reads that a grouped implementation (`--experts grouped_mm`: one sort of
the tokens by expert, one grouped GEMM) does not make.

  glueprof profile -- python3 examples/python/hf_moe_train.py --steps 4
  glueprof ab --exec "python3 examples/python/hf_moe_train.py" --optimized-args="--experts grouped_mm"
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
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--experts-count", type=int, default=8, help="experts per layer")
    p.add_argument("--top-k", type=int, default=2, help="experts per token")
    p.add_argument("--seq-len", type=int, default=64)
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--vocab", type=int, default=512)
    p.add_argument("--experts", default="eager", choices=["eager", "grouped_mm", "batched_mm"],
                   help="transformers' experts implementation")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cpu")
    return p.parse_args(argv)


def train(args):
    from transformers import MixtralConfig, MixtralForCausalLM

    torch.manual_seed(args.seed)
    config = MixtralConfig(vocab_size=args.vocab, hidden_size=args.hidden,
                           intermediate_size=2 * args.hidden, num_hidden_layers=args.layers,
                           num_attention_heads=4, num_key_value_heads=2,
                           num_local_experts=args.experts_count,
                           num_experts_per_tok=args.top_k, max_position_embeddings=args.seq_len,
                           attn_implementation="sdpa", experts_implementation=args.experts)
    device = torch.device(args.device)
    model = MixtralForCausalLM(config).to(device)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    generator = torch.Generator().manual_seed(args.seed + 1)
    for _ in range(args.steps):
        tokens = torch.randint(0, args.vocab, (args.batch, args.seq_len + 1), generator=generator)
        inputs, targets = tokens[:, :-1].to(device), tokens[:, 1:].to(device)
        logits = model(input_ids=inputs).logits
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        record_loss(loss.item())


if __name__ == "__main__":
    started = time.perf_counter()
    train(parse_args())
    print(f"trained in {time.perf_counter() - started:.2f} s")
