#!/usr/bin/env python3
"""scripts/score_picks.py against the built aot-runner and the compiled sm90 heuristic (no GPU).
Run by ctest (Scripts.ScorePicks, which passes the binary) or directly:
    python3 tests/test_score_picks.py build/aot-runner"""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

import runner_script_support as support

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCRIPT = os.path.join(support.SCRIPTS, "score_picks.py")
DATABASE = os.path.join(ROOT, "configs", "sm90", "causal_trailing_mean.json")
RUNNER = None  # set from argv


def score(*args):
    return support.run_script("score_picks.py", RUNNER, *args)


def explain_pick(kernel, spec):
    return support.explain(RUNNER, kernel, spec)["config"]["id"]


class ScorePicks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(DATABASE) as f:
            full = json.load(f)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.ids = [c["id"] for c in full["configs"]]
        # Four shapes with made-up times: the heuristic's pick at a known multiple of the best.
        db = copy.deepcopy(full)
        db["shapes"] = copy.deepcopy(full["shapes"][:4])
        cls.expected = {}
        for n, s in enumerate(db["shapes"]):
            chosen = explain_pick(full["kernel"], s["spec"])
            other = next(i for i, c in enumerate(s["cells"]) if c.get("status") == "ok" and cls.ids[i] != chosen)
            for i, c in enumerate(s["cells"]):
                if c.get("status") == "ok":
                    c["median_us"] = 1000.0
            s["cells"][other]["median_us"] = 10.0
            s["cells"][cls.ids.index(chosen)]["median_us"] = 10.0 * (1 + n)  # shape n: slowdown 1 + n
            cls.expected[s["key"]] = (chosen, 1.0 + n, cls.ids[other] if n else None)
        cls.db = os.path.join(cls.tmp.name, "db.json")
        with open(cls.db, "w") as f:
            json.dump(db, f)
        base = copy.deepcopy(db)
        base["shapes"] = base["shapes"][:1]
        cls.base = os.path.join(cls.tmp.name, "base.json")
        with open(cls.base, "w") as f:
            json.dump(base, f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_scores_each_pick_against_the_shapes_measured_best(self):
        r = score("--database", self.db, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual(d["shapes"], 4)
        self.assertEqual(d["unmeasured_picks"], [])
        got = {x["key"]: x for x in d["results"]}
        self.assertEqual(set(got), set(self.expected))
        for key, (chosen, slowdown, best) in self.expected.items():
            self.assertEqual(got[key]["pick"], chosen)
            self.assertAlmostEqual(got[key]["slowdown"], slowdown)
            if best:
                self.assertEqual(got[key]["best"], best)
        self.assertAlmostEqual(d["max_slowdown"], 4.0)
        self.assertAlmostEqual(d["geomean_slowdown"], (1 * 2 * 3 * 4) ** 0.25)
        self.assertEqual([x["slowdown"] for x in d["results"]], sorted((x["slowdown"] for x in d["results"]),
                                                                      reverse=True))

    def test_the_baseline_leaves_only_the_shapes_it_lacks(self):
        r = score("--database", self.db, "--baseline", self.base, "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        d = json.loads(r.stdout)
        self.assertEqual(d["shapes"], 3)
        self.assertAlmostEqual(d["geomean_slowdown"], (2 * 3 * 4) ** (1 / 3))
        r = score("--database", self.db, "--baseline", self.db)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("none the baseline lacks", r.stderr)

    def test_a_pick_without_a_measured_cell_is_listed_not_averaged(self):
        with open(self.db) as f:
            db = json.load(f)
        first = db["shapes"][0]
        chosen = self.expected[first["key"]][0]
        first["cells"][self.ids.index(chosen)] = {"status": "failed", "message": "made up"}
        path = os.path.join(self.tmp.name, "unmeasured.json")
        with open(path, "w") as f:
            json.dump(db, f)
        d = json.loads(score("--database", path, "--json").stdout)
        self.assertEqual(d["shapes"], 3)
        self.assertEqual(d["unmeasured_picks"], [{"key": first["key"], "pick": chosen, "status": "failed"}])

    def test_bad_inputs_are_named(self):
        r = score("--database", os.path.join(ROOT, "README.md"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("README.md is not JSON", r.stderr)
        r = score("--database", os.path.join(self.tmp.name, "missing.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("missing.json", r.stderr)
        r = score("--database", self.db, "--baseline", os.path.join(ROOT, "configs", "sm90", "jagged_sum.json"))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("the baseline is a jagged_sum database", r.stderr)
        r = subprocess.run([sys.executable, SCRIPT, "--runner", "/nonexistent/aot-runner", "--database", self.db],
                           capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(r.stderr.count("/nonexistent/aot-runner not found"), 1, r.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_score_picks.py <path to aot-runner> [unittest arguments]")
    RUNNER = sys.argv.pop(1)
    unittest.main()
