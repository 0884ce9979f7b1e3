#!/usr/bin/env python3
"""scripts/compare_sweeps.py on two hand-made results databases whose every ratio is known.
Run by ctest (Scripts.CompareSweeps) or directly: python3 tests/test_compare_sweeps.py"""
import json
import math
import os
import unittest

from script_test_case import ScriptTestCase  # tests/ is on the path: this file's folder

OLD_BIG_US = 300e6 / 3.5e6  # 300 MB at 3.5 TB/s


def database(kernel, shapes):
    """shapes: [(key, dist, bytes moved, {config id: µs or None for a failed cell})]."""
    ids = ["a.t1", "b.t1"]
    return {
        "kernel": kernel,
        "configs": [{"index": i, "id": c} for i, c in enumerate(ids)],
        "shapes": [{"key": key, "spec": {"dist": dist}, "bytes_moved": moved,
                    "cells": [{"status": "ok", "median_us": t[c]} if t.get(c) is not None
                              else {"status": "failed", "reason": "mismatch"} for c in ids]}
                   for key, dist, moved, t in shapes],
    }


class CompareSweeps(ScriptTestCase):
    SCRIPT_NAME = "compare_sweeps.py"

    def test_every_ratio_count_and_bar(self):
        # big: uniform, 300 MB: 3.5 TB/s (just under the 3.6 bar) -> 80 µs (3.75 TB/s), a.t1 best both times.
        # small: powerlaw, 1 KB: b.t1 best at 4 µs -> a.t1 best at 5 µs (b.t1 now 6).
        old = self.write("old.json", database("k", [
            ("big", "uniform", 300e6, {"a.t1": OLD_BIG_US, "b.t1": 120.0}),
            ("small", "powerlaw", 1e3, {"a.t1": 5.0, "b.t1": 4.0}),
            ("gone", "uniform", 1e3, {"a.t1": 1.0, "b.t1": 1.0}),
        ]))
        new = self.write("new.json", database("k", [
            ("big", "uniform", 300e6, {"a.t1": 80.0, "b.t1": 120.0}),
            ("small", "powerlaw", 1e3, {"a.t1": 5.0, "b.t1": 6.0}),
            ("added", "uniform", 1e3, {"a.t1": 1.0, "b.t1": None}),
        ]))
        r = self.run_script(old, new, "--json", "--top", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        rep = json.loads(r.stdout)
        big = 80.0 / OLD_BIG_US
        self.assertEqual(rep["kernel"], "k")
        self.assertEqual(rep["shapes"], 2)
        self.assertEqual(rep["only_old"], ["gone"])
        self.assertEqual(rep["only_new"], ["added"])
        self.assertAlmostEqual(rep["best"]["geomean"], math.sqrt(big * 1.25))
        self.assertAlmostEqual(rep["best"]["min"], big)
        self.assertAlmostEqual(rep["best"]["max"], 1.25)
        self.assertAlmostEqual(rep["best_uniform"]["geomean"], big)
        self.assertAlmostEqual(rep["best_skewed"]["geomean"], 1.25)
        self.assertEqual(rep["best_by_size"]["< 1 MB"]["n"], 1)
        self.assertEqual(rep["best_by_size"]["1-256 MB"]["n"], 0)
        self.assertAlmostEqual(rep["best_by_size"][">= 256 MB"]["geomean"], big)
        self.assertAlmostEqual(rep["cells_by_strategy"]["a"]["geomean"], math.sqrt(big * 1.0))
        self.assertAlmostEqual(rep["cells_by_strategy"]["b"]["geomean"], math.sqrt(1.0 * 1.5))
        self.assertEqual(rep["wins_by_strategy"], {"a": {"old": 1, "new": 2}, "b": {"old": 1, "new": 0}})
        self.assertEqual(rep["large_bars"]["old"], {"uniform_under": 1, "uniform": 1, "skewed_under": 0, "skewed": 0})
        self.assertEqual(rep["large_bars"]["new"], {"uniform_under": 0, "uniform": 1, "skewed_under": 0, "skewed": 0})
        self.assertEqual([x["shape"] for x in rep["most_faster"]], ["big"])
        self.assertEqual([x["shape"] for x in rep["most_slower"]], ["small"])
        self.assertEqual((rep["most_slower"][0]["old_best"], rep["most_slower"][0]["new_best"]), ("b.t1", "a.t1"))
        text = self.run_script(old, new)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("uniform under 3.6 TB/s 1 -> 0 of 1", text.stdout)

    def one_shape(self, name, kernel, key):
        return self.write(name, database(kernel, [(key, "uniform", 1.0, {"a.t1": 1.0, "b.t1": 2.0})]))

    def assert_refused(self, old, new, message):
        r = self.run_script(old, new)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(message, r.stderr)

    def test_refuses_two_kernels_a_missing_file_and_no_shape_in_common(self):
        a = self.one_shape("a.json", "k1", "s")
        self.assert_refused(a, self.one_shape("b.json", "k2", "s"), "different kernels: k1")
        self.assert_refused(a, os.path.join(self.dir.name, "missing.json"), "cannot read results database")
        self.assert_refused(a, self.one_shape("c.json", "k1", "s2"), "share no shape")

if __name__ == "__main__":
    unittest.main()
