"""Shared by the tests of the plain-Python scripts that read files they are given
(tests/test_compare_sweeps.py, tests/test_noise_floor.py): a temporary folder to write their
inputs into, and the script run on them with its output captured."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")


class ScriptTestCase(unittest.TestCase):
    """A subclass names its script in SCRIPT_NAME, under SCRIPT_DIR (scripts/ unless it says)."""

    SCRIPT_NAME = None
    SCRIPT_DIR = SCRIPTS

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, obj):
        """obj as JSON in the temporary folder; returns its path."""
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(obj, f)
        return path

    def run_script(self, *args):
        return subprocess.run([sys.executable, os.path.join(self.SCRIPT_DIR, self.SCRIPT_NAME), *args],
                              capture_output=True, text=True, timeout=300)
