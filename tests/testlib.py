"""What the Python test drivers share: running a command, reading a trace.

Imported by tests/fault/fault_py.py and tests/robust/run.py (they put
tests/ on sys.path)."""
import json
import os
import subprocess


def run(cmd, env=None, timeout=600):
    """(exit status, stdout, stderr); a timeout is status -1."""
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %ss" % timeout


def trace_regions(path):
    """The region records of a CYOCL_TRACE file (lines with an impl; sync
    events and the like are left out); [] when there is no file."""
    recs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                r = json.loads(line)
                if isinstance(r, dict) and "impl" in r:
                    recs.append(r)
    return recs
