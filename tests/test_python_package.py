#!/usr/bin/env python3
"""The Python package (python/aotune) against the built libaotune.so. Run by ctest
(Python.Package, which passes the library) or directly:
    python3 tests/test_python_package.py build/libaotune.so

Without torch: the C ABI layer (loading, version, errors). With torch: argument checks and the
torch.library ops' fake implementations on meta tensors (torch.export, torch.compile). With a
CUDA device as well: every function against a float64 reference (every dtype, int32 and int64
offsets, empty rows, one huge row, B = 0), out=, torch.compile(fullgraph=True), and a CUDA graph."""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import aotune  # noqa: E402  (needs the path above)
from aotune import _lib  # noqa: E402

LIBRARY = None  # set from argv

try:
    import torch
except ImportError:
    torch = None
HAS_CUDA = torch is not None and torch.cuda.is_available()


def header_version():
    with open(os.path.join(ROOT, "dispatch", "include", "aotune", "aotune_c.h")) as f:
        text = f.read()
    return tuple(int(re.search(r"#define AOTUNE_VERSION_%s (\d+)" % p, text).group(1))
                 for p in ("MAJOR", "MINOR", "PATCH"))


class CAbi(unittest.TestCase):
    """The ctypes layer; no torch, no GPU."""

    @classmethod
    def setUpClass(cls):
        cls.lib = aotune.Library(LIBRARY)

    def test_versions_agree(self):
        v = header_version()
        self.assertEqual(self.lib.version, v, "the library's aotune_version() and aotune_c.h")
        self.assertEqual(_lib.VERSION, v, "python/aotune/_lib.py's VERSION and aotune_c.h")
        self.assertEqual(aotune.__version__, "%d.%d.%d" % v)
        with open(os.path.join(ROOT, "python", "pyproject.toml")) as f:
            self.assertIn('version = "%d.%d.%d"' % v, f.read(), "python/pyproject.toml's version")

    def test_invalid_calls_raise_with_the_librarys_message(self):
        with self.assertRaises(aotune.InvalidArgumentError) as e:
            self.lib.causal_trailing_mean(16, 32, 1, 1, 8, 0, _lib.DTYPE_F32)
        self.assertIn("cf must be >= 1, got 0", str(e.exception))
        self.assertEqual(e.exception.status, _lib.INVALID_ARGUMENT)
        self.assertIsInstance(e.exception, ValueError)
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "dtype code 7"):
            self.lib.jagged_sum(16, 32, 48, 2, 4, 8, -1, 7, _lib.INDEX_I32)
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "offsets is a null pointer"):
            self.lib.jagged_mean(16, 0, 0, 48, 2, 4, 8, -1, _lib.DTYPE_F32, _lib.INDEX_I64)
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "index type code 5"):
            self.lib.jagged_dense_add(16, 32, 48, 64, 2, 4, 8, -1, _lib.DTYPE_F16, 5)

    def test_releasing_workspaces_with_none_held_succeeds(self):
        self.assertIsNone(self.lib.release_workspaces())
        self.assertIsNone(aotune.release_workspaces())

    def test_status_strings(self):
        self.assertEqual(self.lib.status_string(_lib.OK), "ok")
        self.assertEqual(self.lib.status_string(_lib.CUDA_ERROR), "CUDA error")
        self.assertEqual(self.lib.status_string(42), "unknown status")

    def test_a_missing_library_is_named_when_first_used_not_at_import(self):
        code = ("import aotune\n"
                "try:\n    aotune.library()\n"
                "except aotune.LibraryNotFoundError as e:\n    print('raised:', e)\n")
        env = dict(os.environ, AOTUNE_LIBRARY="/nonexistent/libaotune.so",
                   PYTHONPATH=os.path.join(ROOT, "python"))
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("raised: aotune: cannot load libaotune.so from AOTUNE_LIBRARY=/nonexistent/libaotune.so",
                      r.stdout)

    def test_another_minor_version_is_refused(self):
        saved = _lib.VERSION
        try:
            _lib.VERSION = (saved[0], saved[1] + 1, 0)
            expected = r"is version %d\.%d\.%d; this binding needs %d\.%d\.x" % (saved + (saved[0], saved[1] + 1))
            with self.assertRaisesRegex(aotune.LibraryNotFoundError, expected):
                aotune.Library(LIBRARY)
        finally:
            _lib.VERSION = saved


@unittest.skipIf(torch is None, "torch is not installed")
class TorchWithoutGpu(unittest.TestCase):
    """Checks that fail before any CUDA call, and the ops' fake implementations."""

    def test_a_tensor_off_the_gpu_is_named(self):
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "values is on cpu; it must be a CUDA tensor"):
            aotune.jagged_sum(torch.zeros(10, 4), torch.tensor([0, 3, 10]))
        with self.assertRaisesRegex(TypeError, "x must be a torch.Tensor, got list"):
            aotune.causal_trailing_mean([1.0, 2.0], 2)

    def test_the_ops_give_shapes_and_dtypes_on_meta_tensors(self):
        v = torch.empty(10, 4, device="meta", dtype=torch.bfloat16)
        off = torch.empty(3, device="meta", dtype=torch.int32)
        s = torch.ops.aotune.jagged_sum(v, off, 8)
        self.assertEqual((tuple(s.shape), s.dtype), ((2, 4), torch.bfloat16))
        m = torch.ops.aotune.jagged_mean(v, off, torch.empty(2, device="meta", dtype=torch.int32))
        self.assertEqual(tuple(m.shape), (2, 4))
        y = torch.empty(2, 5, device="meta", dtype=torch.float16)
        a = torch.ops.aotune.jagged_dense_add(torch.empty(9, device="meta", dtype=torch.float16), off, y)
        self.assertEqual((tuple(a.shape), a.dtype), ((2, 5), torch.float16))
        x = torch.empty(2, 3, 7, device="meta")
        self.assertEqual(tuple(torch.ops.aotune.causal_trailing_mean(x, 3).shape), (2, 3, 7))

    def test_export_keeps_the_ops_in_the_graph(self):
        class Model(torch.nn.Module):
            def forward(self, v, off, x):
                return torch.ops.aotune.jagged_sum(v, off, None) * 2, torch.ops.aotune.causal_trailing_mean(x, 3)

        args = (torch.empty(10, 4, device="meta"), torch.empty(3, dtype=torch.int64, device="meta"),
                torch.empty(2, 3, 7, device="meta"))
        graph = torch.export.export(Model(), args).graph
        targets = [str(n.target) for n in graph.nodes if n.op == "call_function"]
        self.assertIn("aotune.jagged_sum.default", targets)
        self.assertIn("aotune.causal_trailing_mean.default", targets)


# ---- float64 references on the host (the C++ tests' reference_check works the same way: an
# error bound scaled by the same reduction over |inputs|)

def lengths_of(offsets):
    o = offsets.cpu().long()
    return o[1:] - o[:-1]


def ref_jagged_sum(values, offsets):
    v = values.cpu().double()
    B = offsets.shape[0] - 1
    rows = torch.repeat_interleave(torch.arange(B), lengths_of(offsets))
    return torch.zeros(B, v.shape[1], dtype=torch.float64).index_add_(0, rows, v)


def ref_jagged_mean(values, offsets, fc):
    sums = ref_jagged_sum(values, offsets)
    lens = lengths_of(offsets)
    cols = torch.arange(values.shape[1])
    keep = lens[:, None] > 0
    if fc is not None:
        keep = keep & (cols[None, :] < fc.cpu().long()[:, None])
    return torch.where(keep, sums / lens.clamp(min=1).double()[:, None], torch.zeros(()).double())


def ref_jagged_dense_add(x, offsets, y):
    out = y.cpu().double().clone()
    xs, o = x.cpu().double(), offsets.cpu().long()
    for b in range(y.shape[0]):
        n = int(o[b + 1] - o[b])
        out[b, :n] += xs[o[b]:o[b] + n]
    return out


def ref_causal_trailing_mean(x, cf):
    c = torch.nn.functional.pad(x.cpu().double().cumsum(-1), (1, 0))
    T = x.shape[-1]
    t = torch.arange(T)
    lo = (t + 1 - cf).clamp(min=0)
    return (c[..., t + 1] - c[..., lo]) / (t + 1 - lo).double()


# reference_check's bound (kernels/common/dtype.cpp's dtype_tolerance): |out - ref| <= tol * (|ref| +
# scale), NaN never passing.
TOL = {torch.float32: 2e-5, torch.bfloat16: 1e-2, torch.float16: 2e-3} if torch is not None else {}


@unittest.skipUnless(HAS_CUDA, "no CUDA device (or no torch)")
class TorchOnGpu(unittest.TestCase):
    def assert_matches(self, out, ref, scale, what):
        got = out.cpu().double()
        bound = TOL[out.dtype] * (ref.abs() + scale) + 1e-30
        bad = (~((got - ref).abs() <= bound)).nonzero()  # written so that NaN fails
        if bad.numel():
            first = tuple(bad[0].tolist())
            self.fail("%s: %d of %d elements outside the bound, first %s: got %r, expected %r"
                      % (what, bad.shape[0], out.numel(), first, got[first].item(), ref[first].item()))

    def jagged_cases(self):
        g = torch.Generator().manual_seed(7)
        cases = []
        for lens, M in (([5, 0, 17, 3, 0, 40], 7), ([0] * 9, 4), ([200000, 3, 1, 0], 2),
                        ([int(n) for n in torch.randint(0, 60, (300,), generator=g)], 64), ([], 8)):
            for dtype in (torch.float32, torch.bfloat16, torch.float16):
                for index in (torch.int32, torch.int64):
                    off = torch.tensor([0] + list(torch.tensor(lens, dtype=torch.long).cumsum(0).tolist()),
                                       dtype=index)
                    v = torch.randn(int(off[-1]), M, generator=g).to(dtype)
                    cases.append((v.cuda(), off.cuda(), max(lens, default=0)))
        return cases

    def test_jagged_sum_and_mean_match_the_reference(self):
        g = torch.Generator().manual_seed(8)
        for v, off, longest in self.jagged_cases():
            what = "B=%d M=%d %s %s" % (off.shape[0] - 1, v.shape[1], v.dtype, off.dtype)
            scale = ref_jagged_sum(v.abs(), off)
            self.assert_matches(aotune.jagged_sum(v, off, longest), ref_jagged_sum(v, off), scale, "sum " + what)
            fc = torch.randint(0, v.shape[1] + 1, (off.shape[0] - 1,), generator=g).to(off.dtype).cuda()
            for counts in (fc, None):
                ref = ref_jagged_mean(v, off, counts)
                lens = lengths_of(off).clamp(min=1).double()[:, None]
                self.assert_matches(torch.ops.aotune.jagged_mean(v, off, counts, None), ref, scale / lens,
                                    "mean %s %s" % ("fc" if counts is not None else "all columns", what))

    def test_jagged_dense_add_matches_the_reference(self):
        g = torch.Generator().manual_seed(9)
        for B, N in ((200, 128), (33, 77), (0, 5), (3, 1)):
            for dtype in (torch.float32, torch.bfloat16, torch.float16):
                lens = torch.randint(0, N + 1, (B,), generator=g)  # a row longer than N is invalid
                off = torch.cat([torch.zeros(1, dtype=torch.long), lens.cumsum(0)]).to(torch.int32)
                x = torch.randn(int(off[-1]), generator=g).to(dtype).cuda()
                y = torch.randn(B, N, generator=g).to(dtype).cuda()
                off = off.cuda()
                ref = ref_jagged_dense_add(x, off, y)
                scale = ref_jagged_dense_add(x.abs(), off, y.abs())
                self.assert_matches(aotune.jagged_dense_add(x, off, y), ref, scale, "B=%d N=%d %s" % (B, N, dtype))

    def test_causal_trailing_mean_matches_the_reference(self):
        g = torch.Generator().manual_seed(10)
        for (B, D, T), cf in (((2, 16, 1000), 64), ((1, 3, 5000), 7), ((4, 64, 33), 100), ((1, 1, 1), 1)):
            for dtype in (torch.float32, torch.bfloat16, torch.float16):
                x = (torch.randn(B, D, T, generator=g) + 3).to(dtype).cuda()
                out = torch.empty_like(x)
                got = aotune.causal_trailing_mean(x, cf, out=out)
                self.assertIs(got, out)
                self.assert_matches(out, ref_causal_trailing_mean(x, cf), ref_causal_trailing_mean(x.abs(), cf),
                                    "%dx%dx%d cf=%d %s" % (B, D, T, cf, dtype))

    def test_bad_tensors_are_named(self):
        v = torch.zeros(10, 4, device="cuda")
        off = torch.tensor([0, 3, 10], device="cuda")
        with self.assertRaisesRegex(aotune.InvalidArgumentError, r"values \(strides \(1, 10\)\) must be contiguous"):
            aotune.jagged_sum(torch.zeros(4, 10, device="cuda").t(), off)
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "offsets is float32; int32 or int64 expected"):
            aotune.jagged_sum(v, off.float())
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "values is int64"):
            aotune.jagged_sum(v.long(), off)
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "feature_counts is int32 and offsets is int64"):
            aotune.jagged_mean(v, off, torch.zeros(2, dtype=torch.int32, device="cuda"))
        with self.assertRaisesRegex(aotune.InvalidArgumentError, r"out is float32 \(3, 4\); float32 \(2, 4\) expected"):
            aotune.jagged_sum(v, off, out=torch.empty(3, 4, device="cuda"))
        with self.assertRaisesRegex(aotune.InvalidArgumentError, "max_len"):
            aotune.jagged_sum(v, off, max_len=1)  # shorter than the mean row: the library says so

    def test_torch_compile_fullgraph_equals_eager(self):
        def f(v, off, x):
            return torch.ops.aotune.jagged_sum(v, off, 50) + 1, torch.ops.aotune.causal_trailing_mean(x * 2, 5)

        g = torch.Generator().manual_seed(11)
        v = torch.randn(100, 16, generator=g).cuda()
        off = torch.tensor([0, 10, 60, 60, 100], device="cuda")
        x = torch.randn(2, 4, 50, generator=g).cuda()
        eager = f(v, off, x)
        compiled = torch.compile(f, fullgraph=True)(v, off, x)
        for a, b in zip(eager, compiled):
            torch.testing.assert_close(a, b)

    def test_calls_after_releasing_the_workspaces_match_the_reference(self):
        # One long row among short ones: a config that splits it over blocks, with scratch.
        off = torch.tensor([0, 300, 399300, 399600, 399900], device="cuda")
        for _ in range(2):
            v = torch.randn(399900, 8, device="cuda")
            out = aotune.jagged_sum(v, off, max_len=399000)
            aotune.release_workspaces()
            self.assert_matches(out, ref_jagged_sum(v, off), ref_jagged_sum(v.abs(), off), "after release")

    def test_the_selection_log_names_each_distinct_call_once(self):
        # AOTUNE_LOG_SELECTIONS is read when the library loads, so a fresh process.
        code = ("import torch, aotune\n"
                "x = torch.randn(2, 8, 300, device='cuda')\n"
                "for _ in range(3):\n    aotune.causal_trailing_mean(x, 9)\n"
                "aotune.causal_trailing_mean(x, 10)\n"
                "torch.cuda.synchronize()\n")
        env = dict(os.environ, AOTUNE_LOG_SELECTIONS="1", PYTHONPATH=os.path.join(ROOT, "python"))
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if "aotune: causal_trailing_mean on sm" in l]
        self.assertEqual(len(lines), 2, r.stderr)  # cf 9 three times, cf 10 once
        self.assertIn(" cf=9 ", lines[0] + " ")
        self.assertIn(" cf=10 ", lines[1] + " ")

    def test_a_cuda_graph_replays_with_new_inputs(self):
        # causal_trailing_mean and jagged_dense_add take no scratch; the jagged reduces' scratch
        # under capture is DispatchGraphCapture*'s (tests/test_dispatch_graph_capture.cpp).
        x = torch.randn(2, 8, 300, device="cuda")
        off = torch.tensor([0, 5, 5, 16], device="cuda", dtype=torch.int32)  # rows 5, 0 and N
        xj = torch.randn(16, device="cuda")
        y = torch.randn(3, 16, device="cuda")
        aotune.causal_trailing_mean(x, 9)  # warm-up outside the capture, as torch.cuda.graph asks
        aotune.jagged_dense_add(xj, off, y)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            out_t = aotune.causal_trailing_mean(x, 9)
            out_a = aotune.jagged_dense_add(xj, off, y)
        for _ in range(2):
            x.copy_(torch.randn_like(x))
            y.copy_(torch.randn_like(y))
            graph.replay()
            torch.cuda.synchronize()
            self.assert_matches(out_t, ref_causal_trailing_mean(x, 9), ref_causal_trailing_mean(x.abs(), 9),
                                "graph trailing mean")
            self.assert_matches(out_a, ref_jagged_dense_add(xj, off, y), ref_jagged_dense_add(xj.abs(), off, y.abs()),
                                "graph jagged dense add")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_python_package.py <path to libaotune.so> [unittest arguments]")
    LIBRARY = os.path.abspath(sys.argv.pop(1))
    os.environ["AOTUNE_LIBRARY"] = LIBRARY  # aotune.library(), used by the tensor functions
    unittest.main()
