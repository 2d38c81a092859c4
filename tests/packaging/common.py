"""Helpers of the packaging tests: commands with their output shown."""
import os
import shlex
import subprocess
import sys
import time

SKIP = 77


def run(cmd, *, env=None, cwd=None, check=True, capture=False):
    t0 = time.monotonic()
    print(f"$ {' '.join(shlex.quote(str(c)) for c in cmd)}", flush=True)
    r = subprocess.run([str(c) for c in cmd], env=env, cwd=cwd, text=True,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.STDOUT if capture else None)
    dt = time.monotonic() - t0
    if capture and r.stdout:
        sys.stdout.write(r.stdout)
    print(f"  (exit {r.returncode}, {dt:.1f} s)", flush=True)
    if check and r.returncode != 0:
        sys.exit(f"FAIL: exit {r.returncode}: {' '.join(map(str, cmd))}")
    return r


def clean_env(extra_path=None, **set_vars):
    """The environment without anything that points at a cyocl build: no
    PYTHONPATH, CYOCL, CYOCL_PYTHON; extra_path first on PATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "CYOCL", "CYOCL_PYTHON", "PYTHONHOME", "VIRTUAL_ENV")}
    if extra_path:
        env["PATH"] = os.pathsep.join([str(extra_path), env.get("PATH", "")])
    env.update({k: str(v) for k, v in set_vars.items()})
    return env


def fail(msg):
    sys.exit(f"FAIL: {msg}")
