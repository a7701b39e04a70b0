#!/usr/bin/env python3
"""Baseline: a plain Python regex reader for Go gctrace output.

This is the "ordinary script" a person would write to summarise a
GODEBUG=gctrace=1 log, used by speed.sh as the Python baseline for gcscope.
Standard library only; one compiled regex; the file is read line by line.

Usage: python3 py_reader.py TRACE.log

It matches the Go 1.6+ gc summary line, e.g.

  gc 6 @0.458s 7%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu,
  98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P

("MB stacks, MB globals" exist since Go 1.18, " (checking for goroutine
leaks)" since Go 1.26 with the experiment, " (forced)" for runtime.GC()).
Every field is converted to a number; all other lines (scan:, pacer:, scav,
program output, lines split by interleaved output) are skipped.

Printed summary: gc cycles, the sums of the assist / background / idle
mark-phase CPU ms, and the max STW pause = sweep-term clock + mark-term clock.
"""
import re
import sys

GC_LINE = re.compile(
    r"gc (\d+) @(\d+\.?\d*)s (\d+)%(?: \(checking for goroutine leaks\))?: "
    r"(\d+\.?\d*)\+(\d+\.?\d*)\+(\d+\.?\d*) ms clock, "
    r"(\d+\.?\d*)\+(\d+\.?\d*)/(\d+\.?\d*)/(\d+\.?\d*)\+(\d+\.?\d*) ms cpu, "
    r"(\d+)->(\d+)->(\d+) MB, (\d+) MB goal, "
    r"(?:(\d+) MB stacks, (\d+) MB globals, )?"
    r"(\d+) P( \(forced\))?"
)


def main(argv):
    if len(argv) != 2:
        print("usage: py_reader.py TRACE.log", file=sys.stderr)
        return 2

    cycles = forced = lines = 0
    assist_ms = background_ms = idle_ms = 0.0
    max_pause_ms = 0.0
    max_pause_gc = None

    with open(argv[1], encoding="utf-8", errors="replace") as f:
        for line in f:
            lines += 1
            m = GC_LINE.match(line)
            if m is None:
                continue
            g = m.groups()
            # Convert every field, as a real reader keeping the cycle would.
            num = int(g[0])
            _at_s = float(g[1])
            _pct = int(g[2])
            sweep_term, _mark, mark_term = float(g[3]), float(g[4]), float(g[5])
            _stw1_cpu, assist, bg, idle, _stw2_cpu = (
                float(g[6]), float(g[7]), float(g[8]), float(g[9]), float(g[10]))
            _h0, _h1, _h2, _goal = int(g[11]), int(g[12]), int(g[13]), int(g[14])
            _stacks = int(g[15]) if g[15] is not None else None
            _globals = int(g[16]) if g[16] is not None else None
            _procs = int(g[17])
            is_forced = g[18] is not None

            cycles += 1
            forced += is_forced
            assist_ms += assist
            background_ms += bg
            idle_ms += idle
            pause = sweep_term + mark_term
            if pause > max_pause_ms:
                max_pause_ms = pause
                max_pause_gc = num

    print(f"lines:        {lines}")
    print(f"cycles:       {cycles} ({forced} forced)")
    print(f"cpu assist:   {assist_ms:.3f} ms")
    print(f"cpu bg:       {background_ms:.3f} ms")
    print(f"cpu idle:     {idle_ms:.3f} ms")
    where = f" (gc {max_pause_gc})" if max_pause_gc is not None else ""
    print(f"max pause:    {max_pause_ms:.3f} ms{where}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
