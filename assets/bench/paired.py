#!/usr/bin/env python3
"""paired.py: how two shell commands compare, measured in pairs.

    assets/bench/paired.py N "COMMAND_A" "COMMAND_B"

Runs A and B N times each, interleaved A B, B A, A B, ... (after one untimed run of each),
and prints the median over the pairs of B's wall time over A's, the range of those ratios,
the same median for CPU time (user + system of the command and its children), and each
command's median and best wall time. On a shared machine whose speed moves by a factor of two
from one hour to the next (the 2-core CI VM), a ratio taken within each pair holds where
seconds from separate runs do not: this is how the README's "paired" figures were measured.

Each command's standard output goes to a temporary file, not /dev/null: GNU grep writing to
/dev/null stops at its first match, `-c` included, and would time nothing.

Example (the README's speed section, gc-only input):
    assets/bench/paired.py 21 "grep -c '^gc ' /tmp/gcscope-1m-gc-only.log" \\
        "target/release/gcscope summary --json /tmp/gcscope-1m-gc-only.log"
"""

import resource
import statistics
import subprocess
import sys
import tempfile
import time


def run(command, out):
    """Wall and CPU seconds of one run of `command` (a shell command line)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out.seek(0)
    out.truncate()
    subprocess.run(command, shell=True, stdout=out, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    if len(sys.argv) != 4 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit(__doc__.split("\n\n")[1].strip())
    pairs, a, b = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with tempfile.TemporaryFile() as out:
        run(a, out)
        run(b, out)
        wall_ratio, cpu_ratio, wall_a, wall_b = [], [], [], []
        for i in range(pairs):
            order = [(a, 0), (b, 1)] if i % 2 == 0 else [(b, 1), (a, 0)]
            got = {}
            for command, side in order:
                got[side] = run(command, out)
            wall_ratio.append(got[1][0] / got[0][0])
            cpu_ratio.append(got[1][1] / max(got[0][1], 1e-9))
            wall_a.append(got[0][0])
            wall_b.append(got[1][0])
    print(
        f"B/A wall: median {statistics.median(wall_ratio):.3f}x "
        f"[{min(wall_ratio):.3f}-{max(wall_ratio):.3f}] over {pairs} pairs; "
        f"CPU: median {statistics.median(cpu_ratio):.3f}x\n"
        f"A: median {statistics.median(wall_a):.3f} s, best {min(wall_a):.3f} s\n"
        f"B: median {statistics.median(wall_b):.3f} s, best {min(wall_b):.3f} s"
    )


if __name__ == "__main__":
    main()
