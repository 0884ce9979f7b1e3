#!/usr/bin/env python3
"""scripts/ab_compare.py on hand-made bench rounds whose every ratio is known, with a config that
fails its check in the new build and one the change made legal.
Run by ctest (Scripts.AbCompare) or directly: python3 tests/test_ab_compare.py"""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "ab_compare.py")
IDS = ["a.t1", "b.t1", "c.t1"]


def database(kernel, shapes):
    """shapes: {key: {config id: µs, "failed", or absent (illegal)}}."""
    def cell(t):
        if t is None:
            return {"status": "illegal", "reason": "not supported"}
        if t == "failed":
            return {"status": "failed", "reason": "wrong result: element 7"}
        return {"status": "ok", "median_us": t}
    return {
        "kernel": kernel,
        "configs": [{"index": i, "id": c} for i, c in enumerate(IDS)],
        "shapes": [{"key": key, "cells": [cell(times.get(c)) for c in IDS]} for key, times in shapes.items()],
    }


class AbCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write_round(self, side, r, shapes, kernel="k"):
        folder = os.path.join(self.dir.name, f"{side}{r}", "sm90")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{kernel}.json"), "w") as f:
            json.dump(database(kernel, shapes), f)

    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT, self.dir.name, *args], capture_output=True, text=True)

    def clean_rounds(self):
        # s1: base best a (10, medians over rounds 10 and 10), new best a (8 = median of 7 and 9).
        # s2: base best b (4), new best b (6); a 20 -> 20.
        for r, a_new in ((1, 7.0), (2, 9.0)):
            self.write_round("base", r, {"s1": {"a.t1": 10.0, "b.t1": 12.0}, "s2": {"a.t1": 20.0, "b.t1": 4.0}})
            self.write_round("new", r, {"s1": {"a.t1": a_new, "b.t1": 12.0}, "s2": {"a.t1": 20.0, "b.t1": 6.0}})

    def test_ratios_and_a_clean_exit(self):
        self.clean_rounds()
        r = self.run_script("--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = json.loads(r.stdout)
        shapes = {x["shape"]: x for x in rep["shapes"]}
        self.assertAlmostEqual(shapes["s1"]["best_ratio"], 0.8)
        self.assertEqual(shapes["s1"]["new_best"], "a.t1")
        self.assertAlmostEqual(shapes["s1"]["config_ratio_geomean"], math.sqrt(0.8 * 1.0))
        self.assertAlmostEqual(shapes["s2"]["best_ratio"], 1.5)
        self.assertAlmostEqual(rep["summary"]["best_ratio_geomean"], math.sqrt(0.8 * 1.5))
        self.assertEqual(rep["summary"]["rounds"], {"base": [1, 2], "new": [1, 2]})
        self.assertEqual(rep["summary"]["failed_cells"], {"base": [], "new": []})
        self.assertEqual(shapes["s1"]["configs_only_base"], [])

    def test_failed_and_newly_legal_configs_are_named_and_fail_the_run(self):
        # In the new build, b fails its check on s1 (in round 2 only) and c, illegal before, runs.
        self.write_round("base", 1, {"s1": {"a.t1": 10.0, "b.t1": 12.0}})
        self.write_round("base", 2, {"s1": {"a.t1": 10.0, "b.t1": 12.0}})
        self.write_round("new", 1, {"s1": {"a.t1": 10.0, "b.t1": 12.0, "c.t1": 5.0}})
        self.write_round("new", 2, {"s1": {"a.t1": 10.0, "b.t1": "failed", "c.t1": 5.0}})
        r = self.run_script()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("only in base (1): b.t1", r.stdout)
        self.assertIn("only in new (1): c.t1", r.stdout)
        self.assertIn("FAILED: 1 new cell(s)", r.stdout)
        self.assertIn("new round 2 b.t1 on s1: failed: wrong result: element 7", r.stdout)
        self.assertIn("geomean 0.5000", r.stdout)  # the comparison is still printed in full
        rep = json.loads(self.run_script("--json").stdout)
        self.assertEqual(len(rep["summary"]["failed_cells"]["new"]), 1)
        self.assertEqual(rep["summary"]["failed_cells"]["new"][0]["round"], 2)

    def test_refusals(self):
        r = self.run_script()
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("needs base<r>/ and new<r>/", r.stderr)
        self.write_round("base", 1, {"s1": {"a.t1": 1.0}}, kernel="k1")
        self.write_round("new", 1, {"s1": {"a.t1": 1.0}}, kernel="k2")
        r = self.run_script()
        self.assertIn("different kernels", r.stderr)


if __name__ == "__main__":
    unittest.main()
