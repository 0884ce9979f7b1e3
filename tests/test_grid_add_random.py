#!/usr/bin/env python3
"""scripts/grid_add_random.py on copies of grids: it appends single-shape generators drawn from
bench/peer_shapes.py's space, deterministically and once per seed, refuses the peers' test seeds,
and the committed grids hold the draws session 49 tuned on. Run by ctest (Scripts.GridAddRandom,
with aot-runner to expand the grown grid) or directly:
    python3 tests/test_grid_add_random.py [path/to/aot-runner]"""
import json
import os
import shutil
import subprocess
import sys
import unittest

from script_test_case import ScriptTestCase  # noqa: E402  (tests/ is on the path: this file's folder)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
AOT_RUNNER = None  # set from argv


def small_grid(kernel="jagged_sum"):
    return {"kernel": kernel,
            "generators": [{"comment": "hand-made", "B": [4, 64], "M": 8, "len": 16, "dist": "uniform",
                            "dtype": "f32", "seed": 1}]}


class GridAddRandom(ScriptTestCase):
    SCRIPT_NAME = "grid_add_random.py"

    def grid(self, name="jagged_sum.json", doc=None):
        return self.write(name, doc or small_grid())

    def test_it_appends_single_shape_generators_and_leaves_the_others_as_they_were(self):
        path = self.grid()
        r = self.run_script("jagged_sum", "--grid", path, "--count", "12", "--seed", "7")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("added 12 random shapes (seed 7)", r.stdout)
        doc = json.load(open(path))
        self.assertEqual(doc["generators"][0], small_grid()["generators"][0])
        added = doc["generators"][1:]
        self.assertEqual(len(added), 12)
        self.assertEqual(len({g["seed"] for g in added}), 12)
        for g in added:
            self.assertTrue(7000 <= g["seed"] < 8000, g)
            self.assertIn("random draw", g["comment"])
            for field, value in g.items():
                self.assertNotIsInstance(value, list, (field, g))  # one shape each
            self.assertIn(g["dtype"], ("f32", "bf16", "f16"))

    def test_the_same_seed_adds_nothing_the_second_time_and_gives_the_same_file_anywhere(self):
        a = self.grid("a.json", small_grid("jagged_mean"))
        b = os.path.join(self.dir.name, "b.json")
        shutil.copy(a, b)
        for path in (a, b):
            self.assertEqual(self.run_script("jagged_mean", "--grid", path, "--count", "5").returncode, 0)
        self.assertEqual(open(a).read(), open(b).read())
        before = open(a).read()
        again = self.run_script("jagged_mean", "--grid", a, "--count", "5")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("already holds the 5 draws of seed 49", again.stdout)
        self.assertEqual(open(a).read(), before)
        # A smaller count is a prefix of a larger one: the first draws of seed 49 are the same.
        more = self.run_script("jagged_mean", "--grid", a, "--count", "8")
        self.assertIn("added 3 random shapes", more.stdout)

    def test_dry_run_changes_nothing(self):
        path = self.grid()
        before = open(path).read()
        r = self.run_script("jagged_sum", "--grid", path, "--count", "4", "--dry-run")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("would add 4 random shapes", r.stdout)
        self.assertEqual(open(path).read(), before)

    def test_bad_arguments_and_files_are_named(self):
        path = self.grid()
        for args, needle in ((["--seed", "1"], "--seed 1 is one of the test draws"),
                             (["--seed", "2"], "--seed 2"),
                             (["--seed", "100"], "--seed 100 is one of the test draws (1, 2, 3, 4, 100, 101, 102)"),
                             (["--seed", "101"], "--seed 101 is one of the test draws"),
                             (["--seed", "102"], "--seed 102 is one of the test draws"),
                             (["--seed", "4"], "--seed 4 is one of the test draws"),
                             (["--count", "0"], "--count must be at least 1, got 0"),
                             (["--seed", "-3"], "--seed must be at least 0, got -3")):
            r = self.run_script("jagged_sum", "--grid", path, *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(needle, r.stderr, args)
        r = self.run_script("jagged_sum", "--grid", self.grid("other.json", small_grid("jagged_dense_add")))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is the grid of 'jagged_dense_add', not 'jagged_sum'", r.stderr)
        broken = os.path.join(self.dir.name, "broken.json")
        open(broken, "w").write("{\"kernel\": ")
        r = self.run_script("jagged_sum", "--grid", broken)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("is not valid JSON", r.stderr)
        r = self.run_script("jagged_sum", "--grid", os.path.join(self.dir.name, "missing.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("cannot read the grid", r.stderr)
        self.assertEqual(self.run_script("no_such_kernel").returncode, 2)

    def test_the_committed_grids_hold_the_draws_session_49_tuned_on(self):
        for kernel in ("jagged_sum", "jagged_mean", "jagged_dense_add"):
            r = self.run_script(kernel, "--count", "64", "--seed", "49", "--dry-run")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("already holds the 64 draws of seed 49", r.stdout, kernel)

    def test_aot_runner_expands_the_grown_grid(self):
        if not AOT_RUNNER:
            self.skipTest("no aot-runner given (ctest passes it)")
        grids = os.path.join(self.dir.name, "grids")
        os.makedirs(grids)
        for kernel in ("jagged_dense_add", "causal_trailing_mean"):
            path = os.path.join(grids, f"{kernel}.json")
            shutil.copy(os.path.join(ROOT, "configs", "grids", f"{kernel}.json"), path)
            before = subprocess.run([AOT_RUNNER, "tune", "--list-shapes", "-k", kernel, "--grid-dir", grids],
                                    capture_output=True, text=True, timeout=300)
            self.assertEqual(before.returncode, 0, before.stderr)
            self.assertEqual(self.run_script(kernel, "--grid", path, "--count", "10", "--seed", "77").returncode, 0)
            after = subprocess.run([AOT_RUNNER, "tune", "--list-shapes", "-k", kernel, "--grid-dir", grids],
                                   capture_output=True, text=True, timeout=300)
            self.assertEqual(after.returncode, 0, after.stderr)
            count = lambda out: int(out.strip().splitlines()[-1].split()[1])  # "<kernel>  N shapes, ..."
            # Every draw is a shape of its own (a draw equal to an existing shape would be kept once).
            self.assertEqual(count(after.stdout), count(before.stdout) + 10, after.stdout[-300:])


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        AOT_RUNNER = sys.argv.pop(1)
    unittest.main()
