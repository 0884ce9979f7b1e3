#!/usr/bin/env python3
"""Peer benchmark: aotune's dispatch library (heuristic-selected config, called through the C ABI
with torch tensors via ctypes) against PyTorch eager, torch.compile (of the eager code, and for
the jagged reduces also of an index_add scatter formulation) and a Triton two-cumsum
trailing-mean kernel, on the same GPU with the same timing protocol for every contender
(triton.testing.do_bench: CUDA events, L2 cleared between repetitions, median), each contender
timed in --rounds interleaved rounds (order rotated per round; the median round counts). Every
contender's output is checked against ours before its time counts.

    python3 bench/peers.py --lib build/libaotune.so --out out/peers.json [--quick] [--rounds 3]
    python3 bench/peers.py --lib build/libaotune.so --out out/random.json --random 48 [--seed 1]
    python3 bench/peers_report.py out/peers.json   # tables into docs/PERF.md, plot

--random N replaces the fixed rows by N shapes drawn over each kernel's whole space
(bench/peer_shapes.py: log-uniform sizes, every dtype and length distribution), the check of
issue 6's "further set of shapes, kept outside the project"; the report puts them in a table of
their own.

GB/s use the fewest-bytes model of BENCH.md; the copy ceiling is measured in the same run.
"""
import argparse
import ctypes
import json
import math
import os
import sys
import time

import torch
import triton
import triton.language as tl

from peer_shapes import random_cases  # bench/ is on the path: this file's folder

DTYPES = {"f32": (torch.float32, 0), "bf16": (torch.bfloat16, 1), "f16": (torch.float16, 2)}
TOL = {"f32": 1e-4, "bf16": 2e-2, "f16": 4e-3}


# ---------------------------------------------------------------- aotune through the C ABI
class Aotune:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        p, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32
        self.lib.aotune_jagged_sum.argtypes = [p, p, p, i64, i64, i64, i64, i32, i32, p]
        self.lib.aotune_jagged_mean.argtypes = [p, p, p, p, i64, i64, i64, i64, i32, i32, p]
        self.lib.aotune_jagged_dense_add.argtypes = [p, p, p, p, i64, i64, i64, i64, i32, i32, p]
        self.lib.aotune_causal_trailing_mean.argtypes = [p, p, i64, i64, i64, i64, i32, p]
        self.lib.aotune_last_error.restype = ctypes.c_char_p
        for f in ("aotune_jagged_sum", "aotune_jagged_mean", "aotune_jagged_dense_add", "aotune_causal_trailing_mean"):
            getattr(self.lib, f).restype = ctypes.c_int32

    def check(self, status):
        if status != 0:
            raise RuntimeError("aotune: " + self.lib.aotune_last_error().decode())

    # The caller's current stream as a raw handle, through torch's C fast path (the one Triton's
    # launcher calls): torch.cuda.current_stream() builds a Stream object on every call, which is
    # host time inside a small shape's 4-5 µs. The C ABI takes the handle as a plain pointer.
    try:
        from torch._C import _cuda_getCurrentRawStream as _raw_stream
    except ImportError:  # an older or newer torch without it
        _raw_stream = staticmethod(lambda device: torch.cuda.current_stream(device).cuda_stream)

    def stream(self, t):
        return self._raw_stream(t.get_device())

    def jagged_sum(self, v, off, out, max_len, dt):
        self.check(self.lib.aotune_jagged_sum(v.data_ptr(), off.data_ptr(), out.data_ptr(), out.shape[0], v.shape[1],
                                              v.shape[0], max_len, DTYPES[dt][1], 1, self.stream(out)))

    def jagged_mean(self, v, off, fc, out, max_len, dt):
        self.check(self.lib.aotune_jagged_mean(v.data_ptr(), off.data_ptr(), fc.data_ptr(), out.data_ptr(), out.shape[0],
                                               v.shape[1], v.shape[0], max_len, DTYPES[dt][1], 1, self.stream(out)))

    def jagged_dense_add(self, x, off, y, out, max_len, dt):
        self.check(self.lib.aotune_jagged_dense_add(x.data_ptr(), off.data_ptr(), y.data_ptr(), out.data_ptr(),
                                                    y.shape[0], y.shape[1], x.shape[0], max_len, DTYPES[dt][1], 1,
                                                    self.stream(out)))

    def trailing_mean(self, x, out, cf, dt):
        B, D, T = x.shape
        self.check(self.lib.aotune_causal_trailing_mean(x.data_ptr(), out.data_ptr(), B, D, T, cf, DTYPES[dt][1],
                                                        self.stream(out)))


# ---------------------------------------------------------------- peers
def eager_jagged_sum(v, off):
    return torch.segment_reduce(v, "sum", offsets=off, axis=0, unsafe=True)


def masked_row_mean(sums, fc, lengths, dtype):
    # Helion's jagged_mean reference semantics from fp32 row sums: the mean over each row's first
    # fc[b] columns, 0 elsewhere and on empty rows.
    cols = torch.arange(sums.shape[1], device=sums.device)
    mask = (cols[None, :] < fc[:, None]) & (lengths[:, None] > 0)
    return torch.where(mask, sums / lengths.clamp(min=1).to(torch.float32)[:, None], 0.0).to(dtype)


def eager_jagged_mean(v, off, fc, lengths):
    s = torch.segment_reduce(v.float(), "sum", offsets=off, axis=0, unsafe=True)
    return masked_row_mean(s, fc, lengths, v.dtype)


# The scatter formulation of the jagged reduces: each value row added into its output row by
# index_add_ (atomics on the GPU), fp32 accumulation. torch.compile lowers it to one Triton
# scatter-add kernel, where it keeps segment_reduce as an ATen call; it is what a user who
# compiles jagged code writes. The row ids come from the offsets outside the timed call, as for
# jagged_dense_add (a cost the peer is spared).
def scatter_row_sums(v, row_ids, B):
    return torch.zeros(B, v.shape[1], device=v.device, dtype=torch.float32).index_add_(0, row_ids, v.float())


def scatter_jagged_sum(v, row_ids, B):
    return scatter_row_sums(v, row_ids, B).to(v.dtype)


def scatter_jagged_mean(v, row_ids, fc, lengths):
    return masked_row_mean(scatter_row_sums(v, row_ids, lengths.shape[0]), fc, lengths, v.dtype)


def eager_jagged_dense_add(x, off, y, row_ids, col_ids):
    out = y.clone()
    out[row_ids, col_ids] += x
    return out


def eager_trailing_mean(x, cf):
    # Global fp32 cumsum differenced over the window (the usual eager formulation).
    T = x.shape[-1]
    cs = torch.cumsum(x.float(), dim=-1)
    shifted = torch.nn.functional.pad(cs, (cf, 0))[..., :T]
    count = torch.clamp(torch.arange(1, T + 1, device=x.device), max=cf).float()
    return ((cs - shifted) / count).to(x.dtype)


@triton.jit
def _trailing_mean_two_cumsum(x_ptr, out_ptr, T, cf, BLOCK_T: tl.constexpr):
    # One program per row; two cumsums (of x and of x shifted by cf) give the window sums.
    row = tl.program_id(0)
    t = tl.arange(0, BLOCK_T)
    base = row.to(tl.int64) * T
    x = tl.load(x_ptr + base + t, mask=t < T, other=0.0).to(tl.float32)
    xs = tl.load(x_ptr + base + t - cf, mask=(t < T) & (t >= cf), other=0.0).to(tl.float32)
    s = tl.cumsum(x, 0) - tl.cumsum(xs, 0)
    count = tl.minimum(t + 1, cf).to(tl.float32)
    tl.store(out_ptr + base + t, (s / count).to(out_ptr.dtype.element_ty), mask=t < T)


def triton_trailing_mean(x, cf, out):
    B, D, T = x.shape
    _trailing_mean_two_cumsum[(B * D,)](x, out, T, cf, BLOCK_T=triton.next_power_of_2(T))
    return out


# ---------------------------------------------------------------- cases
def lengths_for(B, max_len, dist, gen):
    if dist == "uniform":
        return torch.randint(0, max_len + 1, (B,), generator=gen)
    if dist == "powerlaw":  # Pareto(1.2) capped at max_len
        u = torch.rand(B, generator=gen, dtype=torch.float64)
        return torch.clamp((max_len / 24.0) / (1.0 - u) ** (1 / 1.2), max=max_len).long()
    if dist == "one_huge":
        lens = torch.randint(0, max(2, max_len // 64), (B,), generator=gen)
        lens[int(torch.randint(0, B, (1,), generator=gen))] = max_len
        return lens
    raise ValueError(dist)


def cases(quick):
    c = [
        # the rows
        ("jagged_sum", dict(B=1024, M=256, max_len=1024, dist="uniform", dtype="f32")),
        ("jagged_sum", dict(B=64, M=512, max_len=8192, dist="uniform", dtype="f32")),
        ("jagged_sum", dict(B=16384, M=32, max_len=64, dist="uniform", dtype="f32")),
        ("jagged_mean", dict(B=1024, M=256, max_len=1024, dist="uniform", dtype="f32")),
        ("jagged_mean", dict(B=256, M=1024, max_len=128, dist="uniform", dtype="f32")),
        ("jagged_mean", dict(B=64, M=512, max_len=8192, dist="uniform", dtype="f32")),
        ("jagged_dense_add", dict(B=256, N=5000, dist="uniform", dtype="f32")),
        ("jagged_dense_add", dict(B=65536, N=128, dist="uniform", dtype="f32")),
        ("causal_trailing_mean", dict(B=64, D=512, T=2048, cf=100, dtype="bf16")),
        ("causal_trailing_mean", dict(B=16, D=256, T=3000, cf=100, dtype="bf16")),
        ("causal_trailing_mean", dict(B=8, D=512, T=16384, cf=100, dtype="bf16")),
    ]
    if quick:
        return c
    c += [
        # skewed lengths, small latency-bound shapes, >= 1 GB shapes, other dtypes
        ("jagged_sum", dict(B=4096, M=128, max_len=8192, dist="powerlaw", dtype="f32")),
        ("jagged_sum", dict(B=2048, M=256, max_len=200000, dist="one_huge", dtype="bf16")),
        ("jagged_sum", dict(B=32, M=64, max_len=16, dist="uniform", dtype="f32")),
        ("jagged_sum", dict(B=8192, M=512, max_len=256, dist="uniform", dtype="bf16")),
        ("jagged_sum", dict(B=4096, M=1024, max_len=512, dist="uniform", dtype="f32")),
        ("jagged_mean", dict(B=4096, M=128, max_len=8192, dist="powerlaw", dtype="bf16")),
        ("jagged_mean", dict(B=16, M=16, max_len=8, dist="uniform", dtype="f32")),
        ("jagged_mean", dict(B=4096, M=1024, max_len=512, dist="uniform", dtype="f32")),
        ("jagged_dense_add", dict(B=8, N=64, dist="uniform", dtype="f32")),
        ("jagged_dense_add", dict(B=4096, N=16384, dist="powerlaw", dtype="bf16")),
        ("jagged_dense_add", dict(B=16384, N=8192, dist="uniform", dtype="f32")),
        ("causal_trailing_mean", dict(B=2, D=4, T=100, cf=8, dtype="f32")),
        ("causal_trailing_mean", dict(B=32, D=1024, T=4096, cf=256, dtype="bf16")),
        ("causal_trailing_mean", dict(B=16, D=1024, T=65536, cf=64, dtype="bf16")),
        ("causal_trailing_mean", dict(B=4, D=64, T=65536, cf=2, dtype="f32")),
        # narrow rows (a scalar or a few features per element, M = 1-4) with skewed lengths: the
        # flat strategies' domain, where our kernels are furthest from the copy ceiling
        ("jagged_sum", dict(B=32768, M=1, max_len=8192, dist="powerlaw", dtype="f32")),
        ("jagged_sum", dict(B=65536, M=4, max_len=256, dist="uniform", dtype="bf16")),
        ("jagged_mean", dict(B=16384, M=4, max_len=4096, dist="powerlaw", dtype="bf16")),
        # histories truncated at a short cap, at embedding widths
        ("jagged_sum", dict(B=8192, M=256, max_len=256, dist="powerlaw", dtype="bf16")),
        ("jagged_mean", dict(B=2048, M=256, max_len=1024, dist="powerlaw", dtype="f32")),
        # many short rows (speech frames, per-feature histories): the flat unit's domain
        ("causal_trailing_mean", dict(B=256, D=128, T=64, cf=32, dtype="bf16")),
        ("causal_trailing_mean", dict(B=64, D=256, T=100, cf=8, dtype="f32")),
        # windows as long as the row or longer (every output a prefix mean) over many short rows:
        # only the scanning units took windows past 32 until session 36 (0.3-0.9 TB/s there)
        ("causal_trailing_mean", dict(B=512, D=256, T=64, cf=200, dtype="bf16")),
        ("causal_trailing_mean", dict(B=128, D=1024, T=96, cf=128, dtype="f32")),
    ]
    return c


def fewest_bytes(kernel, s, nnz, es):
    if kernel in ("jagged_sum", "jagged_mean"):
        return nnz * s["M"] * es + (s["B"] + 1) * 8 + s["B"] * s["M"] * es
    if kernel == "jagged_dense_add":
        return nnz * es + 2 * s["B"] * s["N"] * es + (s["B"] + 1) * 8
    return 2 * s["B"] * s["D"] * s["T"] * es


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median") * 1e3  # us


def close(a, b, dt):
    a, b = a.float(), b.float()
    return torch.allclose(a, b, rtol=TOL[dt], atol=TOL[dt] * (b.abs().mean().item() + 1e-6))


def run_case(aot, kernel, s, gen, rounds):
    dt = s["dtype"]
    torch_dt = DTYPES[dt][0]
    es = torch.tensor([], dtype=torch_dt).element_size()
    dev = "cuda"
    contenders = {}
    if kernel in ("jagged_sum", "jagged_mean", "jagged_dense_add"):
        B = s["B"]
        max_len = s.get("max_len", s.get("N"))
        lens = lengths_for(B, max_len, s["dist"], gen)
        off = torch.zeros(B + 1, dtype=torch.int64)
        off[1:] = torch.cumsum(lens, 0)
        nnz = int(off[-1])
        lens_d, off_d = lens.to(dev), off.to(dev)
        real_max = int(lens.max()) if B else 0
        if kernel == "jagged_dense_add":
            N = s["N"]
            x = torch.randn(nnz, device=dev).to(torch_dt)
            y = torch.randn(B, N, device=dev).to(torch_dt)
            out = torch.empty_like(y)
            row_ids = torch.repeat_interleave(torch.arange(B, device=dev), lens_d)
            col_ids = torch.arange(nnz, device=dev) - off_d[:-1].repeat_interleave(lens_d)
            ours = lambda: aot.jagged_dense_add(x, off_d, y, out, real_max, dt)
            contenders["eager"] = lambda: eager_jagged_dense_add(x, off_d, y, row_ids, col_ids)
            compiled = torch.compile(eager_jagged_dense_add, dynamic=False)
            contenders["torch.compile"] = lambda: compiled(x, off_d, y, row_ids, col_ids)
        else:
            M = s["M"]
            v = torch.randn(nnz, M, device=dev).to(torch_dt)
            out = torch.empty(B, M, device=dev, dtype=torch_dt)
            row_ids = torch.repeat_interleave(torch.arange(B, device=dev), lens_d)
            if kernel == "jagged_sum":
                ours = lambda: aot.jagged_sum(v, off_d, out, real_max, dt)
                contenders["eager"] = lambda: eager_jagged_sum(v, off_d)
                scatter = torch.compile(scatter_jagged_sum, dynamic=False)
                contenders["torch.compile index_add"] = lambda: scatter(v, row_ids, B)
            else:
                fc = torch.randint(0, M + 1, (B,), generator=gen).to(dev)
                ours = lambda: aot.jagged_mean(v, off_d, fc, out, real_max, dt)
                contenders["eager"] = lambda: eager_jagged_mean(v, off_d, fc, lens_d)
                compiled = torch.compile(eager_jagged_mean, dynamic=False)
                contenders["torch.compile"] = lambda: compiled(v, off_d, fc, lens_d)
                scatter = torch.compile(scatter_jagged_mean, dynamic=False)
                contenders["torch.compile index_add"] = lambda: scatter(v, row_ids, fc, lens_d)
    else:
        B, D, T, cf = s["B"], s["D"], s["T"], s["cf"]
        nnz = 0
        x = (torch.randn(B, D, T, device=dev) - 20.0).to(torch_dt)
        out = torch.empty_like(x)
        ours = lambda: aot.trailing_mean(x, out, cf, dt)
        contenders["eager"] = lambda: eager_trailing_mean(x, cf)
        compiled = torch.compile(eager_trailing_mean, dynamic=False)
        contenders["torch.compile"] = lambda: compiled(x, cf)
        if T <= 4096:
            tout = torch.empty_like(x)
            contenders["triton two-cumsum"] = lambda: triton_trailing_mean(x, cf, tout)
    ours()
    torch.cuda.synchronize()
    reference = out.clone()
    row = {"kernel": kernel, "shape": s, "bytes": fewest_bytes(kernel, s, nnz, es)}
    row["peers"] = {}
    timed = {"ours": ours}
    for name, fn in contenders.items():
        try:
            result = fn()  # also compiles torch.compile / Triton before any timing
            torch.cuda.synchronize()
            row["peers"][name] = {"agrees": bool(close(result, reference, dt))}
            timed[name] = fn
        except Exception as e:  # a peer that cannot run a shape is recorded, not fatal
            row["peers"][name] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
    # Every contender is timed `rounds` times, interleaved, each round in a rotated order, and keeps
    # the median of its rounds: timing each contender once, ours always first, made the order part
    # of the result (the 2x4x100 trailing-mean row read ours 4.8-5.0 us against Triton's 4.0-4.2 in
    # four runs, while interleaved both read 4.3-4.9 and ncu gives both kernels 2.3-2.9 us).
    names = list(timed)
    samples = {n: [] for n in names}
    for r in range(rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            samples[n].append(bench(timed[n]))
    median = lambda v: sorted(v)[len(v) // 2]
    row["ours_us"] = median(samples["ours"])
    row["ours_rounds_us"] = samples["ours"]
    for n in names[1:]:
        row["peers"][n].update({"us": median(samples[n]), "rounds_us": samples[n]})
    return row


def copy_ceiling_gbps():
    a = torch.empty(2 * 1024**3, dtype=torch.uint8, device="cuda")
    b = torch.empty_like(a)
    t = triton.testing.do_bench(lambda: b.copy_(a), warmup=10, rep=50, return_mode="median") * 1e-3
    return 2 * a.numel() / t / 1e9


@triton.jit
def _empty_kernel():
    pass


def launch_floor_us():
    # The protocol's floor: a kernel that does nothing, launched and timed by bench() like every
    # contender. What a small shape's time holds beyond it is the kernel's own work and latency.
    return bench(lambda: _empty_kernel[(1,)]())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", required=True, help="path to libaotune.so")
    ap.add_argument("--out", required=True, help="JSON results file to write")
    ap.add_argument("--quick", action="store_true", help="only the issue's reference rows")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved timing rounds per contender, order rotated each round; the median counts")
    ap.add_argument("--random", type=int, metavar="N",
                    help="time N shapes drawn over each kernel's whole space (bench/peer_shapes.py) "
                         "instead of the fixed rows")
    ap.add_argument("--seed", type=int, default=1, help="the draw of --random (default 1)")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {args.rounds}")
    if args.random is not None and args.random < 1:
        ap.error(f"--random must be at least 1, got {args.random}")
    if args.random is not None and args.quick:
        ap.error("--random and --quick choose the rows two ways: pass one")
    aot = Aotune(args.lib)
    # Every row compiles each formulation for its own shapes (dynamic=False); past dynamo's
    # recompile limit (8 per function) it would silently run the later rows eagerly.
    for knob in ("recompile_limit", "cache_size_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 256)
    gen = torch.Generator().manual_seed(1234)
    t0 = time.time()
    # The ceiling and the floor first, then the file rewritten after every row: a run stopped part
    # way (a time limit, a crash in a peer) keeps every row it finished, and peers_report.py reads it.
    result = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "copy_ceiling_gbps": copy_ceiling_gbps(),
        "launch_floor_us": launch_floor_us(),
        "rounds": args.rounds,
        "date": time.strftime("%Y-%m-%d"),
        "rows": [],
    }
    if args.random:
        result["random"] = {"count": args.random, "seed": args.seed}
    todo = random_cases(args.random, args.seed) if args.random else cases(args.quick)
    for kernel, s in todo:
        try:
            row = run_case(aot, kernel, s, gen, args.rounds)
        except Exception as e:
            row = {"kernel": kernel, "shape": s, "error": f"{type(e).__name__}: {e}"}
            torch.cuda.empty_cache()  # an out-of-memory row leaves the next one its memory
        result["rows"].append(row)
        result["wall_s"] = time.time() - t0
        print(json.dumps(row), flush=True)
        write_atomically(args.out, result)


def write_atomically(path, result):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f, indent=1)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
