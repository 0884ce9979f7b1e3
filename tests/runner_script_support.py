"""Shared by the tests of the scripts that ask a built aot-runner (tests/test_probe_heuristic.py,
tests/test_score_picks.py): run a script under scripts/ with --runner, and ask `explain` itself."""
import json
import os
import subprocess
import sys

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")


def run_script(name, runner, *args):
    """scripts/<name> --runner <runner> <args>, its output captured."""
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, name), "--runner", runner, *args],
                          capture_output=True, text=True, timeout=300)


def explain(runner, kernel, shape):
    """`aot-runner explain --json` for one shape (a dict of its fields) on sm90."""
    text = ",".join(f"{k}={v}" for k, v in shape.items())
    out = subprocess.run([runner, "explain", "--kernel", kernel, "--shape", text, "--arch", "sm90", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)
