#!/usr/bin/env python3
"""The torch-free parts of the peer benchmark: bench/peer_shapes.py's random draws and
bench/peers_report.py's tables, on hand-made results. Run by ctest (Scripts.PeerBench) or
directly: python3 tests/test_peer_bench_scripts.py"""
import json
import os
import sys
import tempfile
import unittest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench")
sys.path.insert(0, BENCH)

import peer_shapes  # noqa: E402  (bench/ is put on the path above)
from script_test_case import ScriptTestCase  # noqa: E402  (tests/ is on the path: this file's folder)


class PeerShapes(unittest.TestCase):
    def test_the_same_count_and_seed_give_the_same_shapes(self):
        self.assertEqual(peer_shapes.random_cases(24, 5), peer_shapes.random_cases(24, 5))
        self.assertNotEqual(peer_shapes.random_cases(24, 5), peer_shapes.random_cases(24, 6))

    def test_every_kernel_dtype_and_distribution_is_drawn_within_the_ranges_and_the_byte_cap(self):
        cases = peer_shapes.random_cases(400, 1)
        self.assertEqual({k for k, _ in cases}, set(peer_shapes.KERNELS))
        self.assertEqual({s["dtype"] for _, s in cases}, set(peer_shapes.DTYPES))
        self.assertEqual({s["dist"] for _, s in cases if "dist" in s}, set(peer_shapes.DISTS))
        ranges = peer_shapes.RANGES
        for kernel, s in cases:
            self.assertLessEqual(peer_shapes.expected_bytes(kernel, s), peer_shapes.MAX_BYTES, (kernel, s))
            if kernel == "causal_trailing_mean":
                self.assertTrue(ranges["B_trailing"][0] <= s["B"] <= ranges["B_trailing"][1], s)
                for axis in ("D", "T", "cf"):
                    self.assertTrue(ranges[axis][0] <= s[axis] <= ranges[axis][1], s)
            else:
                self.assertTrue(ranges["B"][0] <= s["B"] <= ranges["B"][1], s)
        # Odd sizes are the rule, not the exception: most feature widths are not a multiple of 8.
        widths = [s["M"] for k, s in cases if "M" in s]
        self.assertGreater(sum(1 for m in widths if m % 8), len(widths) // 2)

    def test_the_expected_lengths_bound_what_the_benchmark_draws(self):
        # The largest row is always there, and a uniform row averages half the bound.
        self.assertEqual(peer_shapes.expected_rows_total(1, 1000, "one_huge"), 1000)
        self.assertEqual(peer_shapes.expected_rows_total(10, 1000, "uniform"), 5000)
        self.assertLess(peer_shapes.expected_rows_total(10, 1000, "powerlaw"), 10 * 1000)

    def test_grid_generators_match_the_lengths_by_distribution(self):
        g = peer_shapes.grid_generator("jagged_sum", dict(B=10, M=3, max_len=1000, dist="uniform", dtype="f32"), 7)
        self.assertEqual(g, {"B": 10, "M": 3, "dtype": "f32", "len": 500, "dist": "uniform", "seed": 7})
        g = peer_shapes.grid_generator("jagged_mean", dict(B=10, M=3, max_len=1000, dist="powerlaw", dtype="f16"), 7)
        self.assertEqual((g["len"], g["cap"]), (250, 1000))  # scale max_len / 24 = len / 6, capped alike
        # one_huge: the peers' short rows average max_len / 128, the grids' 0.1 x len; the huge row
        # is capped at max_len in both.
        g = peer_shapes.grid_generator("jagged_dense_add", dict(B=100, N=1280, dist="one_huge", dtype="bf16"), 7)
        self.assertEqual((g["len"], g["cap"], g["N"]), (100, 1280, 1280))
        g = peer_shapes.grid_generator("causal_trailing_mean", dict(B=2, D=3, T=5, cf=9, dtype="bf16"), 7)
        self.assertEqual(g, {"B": 2, "D": 3, "T": 5, "cf": 9, "dtype": "bf16", "seed": 7})
        with tempfile.TemporaryDirectory() as d:
            paths = peer_shapes.write_grids(peer_shapes.random_cases(8, 3), d, 3)
            self.assertEqual(len(paths), 4)
            for path in paths:
                with open(path) as f:
                    grid = json.load(f)
                self.assertEqual(len(grid["generators"]), 2)
                self.assertEqual(os.path.basename(path), grid["kernel"] + ".json")

    def test_a_negative_count_or_unknown_kernel_is_refused(self):
        with self.assertRaisesRegex(ValueError, "at least 0, got -1"):
            peer_shapes.random_cases(-1, 1)
        with self.assertRaisesRegex(ValueError, "unknown kernel 'jagged_max'"):
            peer_shapes.expected_bytes("jagged_max", {"dtype": "f32"})


def row(kernel, ours_us, peers, shape=None):
    shape = shape or {"B": 2, "M": 3, "dtype": "f32"}
    return {"kernel": kernel, "shape": shape, "bytes": 1e6, "ours_us": ours_us, "ours_rounds_us": [ours_us],
            "peers": peers}


class PeersReport(ScriptTestCase):
    SCRIPT_NAME = "peers_report.py"
    SCRIPT_DIR = BENCH

    def setUp(self):
        super().setUp()
        self.perf = os.path.join(self.dir.name, "PERF.md")
        with open(self.perf, "w") as f:
            f.write("# PERF\n\n## Peers\n\n<!-- peers:begin -->\nthe fixed rows\n<!-- peers:end -->\n")

    def report(self, result, *extra):
        return self.run_script(self.write("result.json", result), "--commit", "abc", "--perf", self.perf, *extra)

    def result(self, rows, **more):
        return {"device": "GPU", "torch": "t", "triton": "x", "copy_ceiling_gbps": 4000.0, "rounds": 3,
                "date": "2026-12-05", "rows": rows, **more}

    def test_a_random_run_gets_its_own_table_and_plot_and_flags_rows_no_peer_agrees_with(self):
        rows = [
            row("jagged_sum", 10.0, {"eager": {"agrees": True, "us": 20.0}}),
            row("jagged_sum", 10.0, {"eager": {"agrees": True, "us": 5.0}}),
            row("jagged_mean", 10.0, {"eager": {"agrees": False, "us": 30.0}},
                shape={"B": 7, "M": 37, "dtype": "f16"}),
            {"kernel": "causal_trailing_mean", "shape": {"B": 1, "dtype": "bf16"}, "error": "RuntimeError: boom"},
        ]
        p = self.report(self.result(rows, random={"count": 4, "seed": 9}),
                        "--plot", os.path.join(self.dir.name, "r.svg"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.perf) as f:
            perf = f.read()
        self.assertIn("the fixed rows", perf)  # the fixed table is left alone
        self.assertIn("## Peers on random shapes", perf)
        self.assertIn("<!-- peers-random:begin -->", perf)
        self.assertIn("seed 9", perf)
        # 2x and 0.5x: geomean 1.00x over the two rows with an agreeing peer, one of them peer-faster
        self.assertIn("1.00× over 2 shapes; shapes where a peer is faster: 1.", perf)
        self.assertIn("Rows where ours failed to run: 1.", perf)
        self.assertIn("no peer that ran agreed with ours (1: an error on either side or a precision gap; "
                      "read them first): jagged_mean B=7 M=37 f16.", perf)
        self.assertTrue(os.path.exists(os.path.join(self.dir.name, "r.svg")))
        # Run again: the random table is replaced, not appended.
        p = self.report(self.result(rows[:1], random={"count": 1, "seed": 10}),
                        "--plot", os.path.join(self.dir.name, "r.svg"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.perf) as f:
            perf = f.read()
        self.assertEqual(perf.count("<!-- peers-random:begin -->"), 1)
        self.assertIn("seed 10", perf)
        self.assertNotIn("seed 9", perf)
        # A run stopped part way says how far it got.
        p = self.report(self.result(rows[:1], random={"count": 5, "seed": 11}),
                        "--plot", os.path.join(self.dir.name, "r.svg"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.perf) as f:
            self.assertIn("Shapes: the first 1 of 5 drawn", f.read())

    def test_a_fixed_run_replaces_only_the_fixed_table(self):
        p = self.report(self.result([row("jagged_sum", 10.0, {"eager": {"agrees": True, "us": 20.0}})]),
                        "--plot", os.path.join(self.dir.name, "f.svg"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.perf) as f:
            perf = f.read()
        self.assertNotIn("the fixed rows", perf)
        self.assertIn("2.00× over 1 shape;", perf)
        self.assertNotIn("peers-random", perf)

    def test_an_unreadable_result_is_named(self):
        path = os.path.join(self.dir.name, "bad.json")
        with open(path, "w") as f:
            f.write("{not json")
        p = self.run_script(path, "--commit", "abc", "--perf", self.perf)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot read " + path, p.stderr)


if __name__ == "__main__":
    unittest.main()
