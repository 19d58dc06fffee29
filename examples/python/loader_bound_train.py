#!/usr/bin/env python3
"""A training loop that waits for its data: each sample is "tokenized" in Python inside the
Dataset (a character-level hash of a generated sentence), and the DataLoader runs it on the
training thread (`--workers 0`, the default), so every step first spends its time fetching the
batch. With `--workers N` the DataLoader's worker processes prepare the next batches while the
model trains.

  glueprof profile -- python3 examples/python/loader_bound_train.py --steps 8
  glueprof ab --exec "python3 examples/python/loader_bound_train.py" --optimized-args="--workers 2"
"""
import argparse

import torch
import torch.nn.functional as F

try:
    from glueprof import record_loss
except ImportError:  # not run by glueprof

    def record_loss(loss):
        pass


WORDS = ["the", "model", "waits", "for", "its", "batch", "while", "python", "splits", "text"]


class SlowTokenizedText(torch.utils.data.Dataset):
    """Sentences tokenized on the fly, in Python: the cost a data pipeline puts on each step."""

    def __init__(self, samples, length, vocab, work):
        self.samples, self.length, self.vocab, self.work = samples, length, vocab, work

    def __len__(self):
        return self.samples

    def __getitem__(self, index):
        words = [WORDS[(index * 7 + i * 3) % len(WORDS)] for i in range(self.length)]
        tokens = []
        for word in words:
            value = index
            for _ in range(self.work):  # a slow tokenizer's per-word work
                for ch in word:
                    value = (value * 31 + ord(ch)) % 1_000_003
            tokens.append(value % self.vocab)
        return torch.tensor(tokens[:-1]), torch.tensor(tokens[1:])


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=8)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--length", type=int, default=33)
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--work", type=int, default=40, help="tokenizer passes per word")
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    data = SlowTokenizedText(args.steps * args.batch, args.length, args.vocab, args.work)
    loader = torch.utils.data.DataLoader(data, batch_size=args.batch, num_workers=args.workers,
                                         persistent_workers=args.workers > 0)
    model = torch.nn.Sequential(torch.nn.Embedding(args.vocab, args.hidden),
                                torch.nn.Linear(args.hidden, args.hidden), torch.nn.GELU(),
                                torch.nn.Linear(args.hidden, args.vocab))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for inputs, targets in loader:
        loss = F.cross_entropy(model(inputs).reshape(-1, args.vocab), targets.reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        record_loss(loss.item())


if __name__ == "__main__":
    main()
