#!/usr/bin/env python3
"""scripts/noise_floor.py on two hand-made results databases whose every ratio is known.
Run by ctest (Scripts.NoiseFloor) or directly: python3 tests/test_noise_floor.py"""
import os
import unittest

from script_test_case import ScriptTestCase  # tests/ is on the path: this file's folder


def database(shapes):
    """shapes: [(key, bytes moved, {config id: µs or None for a failed cell})]."""
    ids = ["a.t1", "b.t1"]
    return {
        "kernel": "k",
        "configs": [{"index": i, "id": c} for i, c in enumerate(ids)],
        "shapes": [{"key": key, "spec": {}, "bytes_moved": moved,
                    "cells": [{"status": "ok", "median_us": t[c]} if t.get(c) is not None
                              else {"status": "failed", "reason": "mismatch"} for c in ids]}
                   for key, moved, t in shapes],
    }


class NoiseFloor(ScriptTestCase):
    SCRIPT_NAME = "noise_floor.py"

    def test_each_direction_overall_and_by_size(self):
        # tiny (1 KB): run 1's best a.t1 is 2x run 2's best; run 2's best b.t1 is 1.5x run 1's best.
        # mid (10 MB): both runs pick a.t1 (slowdown 1 both ways).
        # big (300 MB): run 1 picks b.t1, 1.1x in run 2; run 2's pick a.t1 failed in run 1, so that
        # direction leaves the shape out. "only1" is in run 1 only: in neither direction.
        one = self.write("one.json", database([
            ("tiny", 1e3, {"a.t1": 4.0, "b.t1": 6.0}),
            ("mid", 10e6, {"a.t1": 10.0, "b.t1": 20.0}),
            ("big", 300e6, {"a.t1": None, "b.t1": 100.0}),
            ("only1", 1e3, {"a.t1": 1.0, "b.t1": 2.0}),
        ]))
        two = self.write("two.json", database([
            ("tiny", 1e3, {"a.t1": 8.0, "b.t1": 4.0}),
            ("mid", 10e6, {"a.t1": 10.0, "b.t1": 30.0}),
            ("big", 300e6, {"a.t1": 100.0, "b.t1": 110.0}),
        ]))
        r = self.run_script(one, two)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        # Run 1 in run 2: 2, 1, 1.1 -> geomean (2.2)^(1/3).
        self.assertIn(f"run 1's best timed in run 2: 3 shapes, geomean slowdown {2.2 ** (1 / 3):.4f}, "
                      "max 2.000, over 1.25: 1", lines)
        self.assertIn("  < 1 MB            1 shapes, geomean 2.0000, max 2.000, over 1.25: 1", lines)
        self.assertIn("  1 MB - 256 MB     1 shapes, geomean 1.0000, max 1.000, over 1.25: 0", lines)
        self.assertIn("  >= 256 MB         1 shapes, geomean 1.1000, max 1.100, over 1.25: 0", lines)
        self.assertIn("    2.00x  0.00 MB  tiny  a.t1", lines)
        # Run 2 in run 1: tiny 1.5, mid 1; big's pick failed in run 1, so 2 shapes and no big class.
        self.assertIn(f"run 2's best timed in run 1: 2 shapes, geomean slowdown {1.5 ** 0.5:.4f}, "
                      "max 1.500, over 1.25: 1", lines)
        second = lines[lines.index(next(l for l in lines if l.startswith("run 2's"))):]
        self.assertFalse(any(">= 256 MB" in l for l in second), r.stdout)

    def test_no_shared_shape_and_bad_arguments_are_errors(self):
        one = self.write("one.json", database([("x", 1e3, {"a.t1": 1.0, "b.t1": 2.0})]))
        two = self.write("two.json", database([("y", 1e3, {"a.t1": 1.0, "b.t1": 2.0})]))
        r = self.run_script(one, two)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("share no shape", r.stderr)
        r = self.run_script(one, os.path.join(self.dir.name, "missing.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot read results database", r.stderr)
        self.assertIn("missing.json", r.stderr)
        r = self.run_script(one)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("noise floor", r.stderr)


if __name__ == "__main__":
    unittest.main()
