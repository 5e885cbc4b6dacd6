#!/usr/bin/env python3
"""Summarises Nsight Compute's SASS source page of one kernel (`ncu --import R --page source --csv
--print-source sass > F.csv`): warp-stall samples by opcode, the stall reasons over the kernel, and the
70 instructions with the most samples in address order. Usage: ncu_top_sass.py F.csv"""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1], errors="replace")))
h = next(i for i, r in enumerate(rows) if "Source" in r and len(r) > 4)
head = rows[h]
data = [r for r in rows[h + 1:] if len(r) == len(head)]


def col(name):
    return next((i for i, c in enumerate(head) if c.startswith(name)), None)


def num(x):
    try:
        return float(x.replace(",", ""))
    except ValueError:
        return 0.0


cs, cn, ce = col("Warp Stall Sampling (All"), col("Warp Stall Sampling (Not"), col("Instructions Executed")
src, ad = col("Source"), col("Address")
tot = sum(num(r[cs]) for r in data) or 1.0
print(f"samples {tot:.0f}, instructions {len(data)}, warp instructions executed {sum(num(r[ce]) for r in data):.4g}")
by_op, executed = collections.Counter(), collections.Counter()
for r in data:
    words = r[src].split()
    op = (words[1] if words and words[0].startswith("@") and len(words) > 1 else words[0] if words else "?").split(".")[0]
    by_op[op] += num(r[cs])
    executed[op] += num(r[ce])
print("by opcode (share of samples, warp instructions executed):")
for op, s in by_op.most_common(25):
    print(f"  {op:10s} {100 * s / tot:5.1f}%  {executed[op]:.3g}")
reasons = collections.Counter()
for r in data:
    for i, c in enumerate(head):
        if c.startswith("stall_") and "Not Issued" not in c:
            reasons[c[6:]] += num(r[i])
rs = sum(reasons.values()) or 1.0
print("stall reasons:", ", ".join(f"{k} {100 * v / rs:.1f}%" for k, v in reasons.most_common(12)))
print("top instructions (index, address, share of samples, not issued):")
for i in sorted(sorted(range(len(data)), key=lambda i: -num(data[i][cs]))[:70]):
    r = data[i]
    print(f"{i:5d} {r[ad]:>14s} {100 * num(r[cs]) / tot:5.2f}% {100 * num(r[cn]) / tot:5.2f}%  {r[src][:80]}")
