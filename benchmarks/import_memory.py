"""The peak memory of ``jaslog import``: the resident set of the import and its worker
processes together, sampled every 20 ms (Linux: ``/proc``), and the peak of each process.

    python -m jaslog simulate -n 3000 -r amsterdam -r rotterdam --seed 1 > games.jsonl
    python -m benchmarks.import_memory --db /tmp/mem.sqlite games.jsonl
    python -m benchmarks.import_memory --db /tmp/mem0.sqlite --workers 0 games.jsonl

Every argument is passed on to ``jaslog import``; the figures go to stderr after its own
output. docs/recording-and-store.md quotes what this measured.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from pathlib import Path

PAGE = 4096


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in task.read_text().split()]
    return out


def _rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def main(args: list[str]) -> int:
    proc = subprocess.Popen([sys.executable, "-m", "jaslog", "import", *args])
    tree_peak, peaks = 0, dict[int, int]()
    while proc.poll() is None:
        todo, total = [proc.pid], 0
        while todo:
            pid = todo.pop()
            rss = _rss(pid)
            peaks[pid] = max(peaks.get(pid, 0), rss)
            total += rss
            todo += _children(pid)
        tree_peak = max(tree_peak, total)
        time.sleep(0.02)
    mib = 1 << 20
    print(f"peak resident set: {tree_peak / mib:.0f} MiB in all; each process "
          + ", ".join(f"{v / mib:.0f}" for v in peaks.values() if v) + " MiB", file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
