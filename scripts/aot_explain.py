"""Asking a built aot-runner which config its heuristic picks: `aot-runner explain --json` for one
shape, run as a subprocess. Shared by scripts/probe_heuristic.py and scripts/score_picks.py, which
call it from worker threads: a failure raises ExplainError, for the caller to report once."""
import json
import subprocess


class ExplainError(Exception):
    pass


def shape_text(shape):
    """A shape's fields as `explain --shape` takes them: k=v,k=v."""
    return ",".join(f"{k}={v}" for k, v in shape.items())


def explain(runner, kernel, arch, shape, timeout=60):
    """explain's JSON answer for one shape (a dict of its fields) on one architecture."""
    text = shape_text(shape)
    try:
        r = subprocess.run([runner, "explain", "--kernel", kernel, "--shape", text, "--arch", arch, "--json"],
                           capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError:
        raise ExplainError(f"{runner} not found; build first (bash scripts/setup.sh) or pass --runner")
    except OSError as e:
        raise ExplainError(f"cannot run {runner}: {e}")
    except subprocess.TimeoutExpired:
        raise ExplainError(f"`aot-runner explain` took over {timeout} s on {text}")
    if r.returncode != 0:
        msg = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise ExplainError(f"`aot-runner explain --kernel {kernel} --shape {text}` failed (exit {r.returncode}): "
                           f"{msg[-1] if msg else 'no message'}")
    try:
        d = json.loads(r.stdout)
    except json.JSONDecodeError:
        raise ExplainError(f"`aot-runner explain --json` printed something that is not JSON for {text}")
    if not isinstance(d, dict) or "id" not in d.get("config", {}):
        raise ExplainError(f"`aot-runner explain --json` named no config for {text}")
    return d
