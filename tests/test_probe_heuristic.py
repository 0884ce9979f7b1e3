#!/usr/bin/env python3
"""scripts/probe_heuristic.py against the built aot-runner and the compiled sm90 heuristic (no GPU).
Run by ctest (Scripts.ProbeHeuristic, which passes the binary) or directly:
    python3 tests/test_probe_heuristic.py build/aot-runner"""
import json
import os
import subprocess
import sys
import unittest

import runner_script_support as support

SCRIPT = os.path.join(support.SCRIPTS, "probe_heuristic.py")
RUNNER = None  # set from argv


def probe(*args):
    return support.run_script("probe_heuristic.py", RUNNER, *args)


def explain(kernel, shape):
    return support.explain(RUNNER, kernel, shape)


class ProbeHeuristic(unittest.TestCase):
    def test_ranks_the_lattice_by_the_forests_own_estimate(self):
        r = probe("--kernel", "jagged_sum", "--axis", "B=1024,16384", "--axis", "M=4,256", "--axis",
                  "max_len=64,1024", "--axis", "dtype=bf16", "--min-bytes", "0", "--max-bytes", "1e12",
                  "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual(d["probes"], 2 * 2 * 2 * 2)  # x 2 length models (both by default)
        est = [p["predicted_slowdown"] for p in d["results"]]
        self.assertEqual(est, sorted(est, reverse=True))
        self.assertTrue(all(e >= 1.0 for e in est), est)  # a mean of slowdowns against the best
        self.assertEqual(d["above_threshold"], sum(1 for e in est if e > 1.15))
        # Every answer is what explain itself says about that shape.
        for p in (d["results"][0], d["results"][-1]):
            e = explain("jagged_sum", p["shape"])
            self.assertEqual(p["config"], e["config"]["id"])
            leaf = next(c for c in e["leaf_candidates"] if c["id"] == e["config"]["id"])
            self.assertAlmostEqual(p["predicted_slowdown"], leaf["predicted_slowdown"])

    def test_derives_nnz_from_the_length_model(self):
        r = probe("--kernel", "jagged_mean", "--axis", "B=1024", "--axis", "M=64", "--axis", "max_len=256",
                  "--axis", "dtype=f32", "--min-bytes", "0", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        nnz = {p["lengths"]: p["shape"]["nnz"] for p in json.loads(r.stdout)["results"]}
        self.assertEqual(nnz["uniform"], 1024 * 128)
        # Pareto(1.2), x_min = 256 / 24, capped at 256: 6 x_min - x_min^1.2 256^-0.2 / 0.2 per row.
        xmin = 256 / 24
        self.assertEqual(nnz["powerlaw"], round(1024 * (6 * xmin - xmin ** 1.2 * 256 ** -0.2 / 0.2)))
        self.assertLess(nnz["powerlaw"], nnz["uniform"])

    def test_the_byte_window_filters_jagged_shapes(self):
        r = probe("--kernel", "jagged_sum", "--axis", "B=16", "--axis", "M=1", "--axis", "max_len=64",
                  "--axis", "dtype=f32")  # a few hundred bytes, under the default 1 MB
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no shape of the lattice", r.stderr)

    def test_refuses_a_kernel_whose_heuristic_is_a_single_tree(self):
        r = probe("--kernel", "jagged_dense_add", "--axis", "B=1024", "--axis", "N=4096", "--axis", "dtype=f32")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("probing needs a forest", r.stderr)

    def test_names_the_shape_explain_refused(self):
        r = probe("--kernel", "jagged_sum", "--axis", "B=1024", "--axis", "M=4", "--lengths", "none")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("B=1024,M=4", r.stderr)
        self.assertIn("len", r.stderr)  # explain's own message: the spec lacks the field 'len'

    def test_bad_axes_are_refused_with_the_text(self):
        for bad, words in ((["--axis", "B1024"], "NAME=v1"), (["--axis", "B=1", "--axis", "B=2"], "twice"),
                           (["--axis", "B="], "NAME=v1")):
            r = probe("--kernel", "jagged_sum", *bad)
            self.assertNotEqual(r.returncode, 0, bad)
            self.assertIn(words, r.stderr, bad)

    def test_a_missing_runner_is_named(self):
        r = subprocess.run([sys.executable, SCRIPT, "--runner", "/nonexistent/aot-runner", "--kernel", "jagged_sum"],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("/nonexistent/aot-runner not found", r.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_probe_heuristic.py <path to aot-runner> [unittest arguments]")
    RUNNER = sys.argv.pop(1)
    unittest.main()
