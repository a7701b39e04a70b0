#!/usr/bin/env bash
# The lab vs real Go fidelity table (docs/FIDELITY.md reproduces with this).
# For each heap shape: N lab runs per marker (same workload, seed and P; one after another,
# A B A B ...), compared with `gcscope compare`, beside the same comparison of the real
# Go 1.27.3 recordings in traces/go (3 runs a side), then the lab's own figures from --json.
#
# Usage: bash assets/bench/fidelity.sh [runs=5] [duration=5s] [outdir=/tmp/gcscope-fidelity]
set -euo pipefail
runs=${1:-5}
dur=${2:-5s}
out=${3:-/tmp/gcscope-fidelity}
cd "$(dirname "$0")/../.."
cargo build --release --quiet
bin=target/release/gcscope
mkdir -p "$out"
for shape in tree map graph pointer scalar; do
  d=$dur
  # map builds 200,000 items (1.4 M objects) before it churns: give it time to.
  [ "$shape" = map ] && d=12s
  for i in $(seq 1 "$runs"); do
    for m in legacy greentea; do
      "$bin" lab --headless --workload "$shape" --marker "$m" --duration "$d" --seed 1 \
        --trace-out "$out/lab_${shape}_${m}_r$i.log" --json \
        >"$out/lab_${shape}_${m}_r$i.json" 2>/dev/null
    done
  done
done
for shape in tree map graph pointer scalar; do
  echo "## $shape"
  echo
  echo "lab, $runs runs a side (legacy = A, Green Tea = B):"
  echo '```'
  "$bin" compare "$out"/lab_"${shape}"_legacy_r*.log -- "$out"/lab_"${shape}"_greentea_r*.log
  echo '```'
  echo "real Go 1.27.3, 3 runs a side:"
  echo '```'
  "$bin" compare traces/go/go1.27.3_legacy_"${shape}"_p2_r{1,2,3}.log -- \
    traces/go/go1.27.3_greentea_"${shape}"_p2_r{1,2,3}.log
  echo '```'
  echo
done
echo "## lab --json figures (median [min-max] over runs; steady cycles, after the heap is built)"
echo
python3 - "$out" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
# Per-cycle means over the steady cycles (setup cycles are left out by the statistics engine).
def figures(r):
    run, n = r["run"], r["run"]["cycles"]
    lab = run.get("lab") or {}
    return {
        "gc_cpu_ms_per_cycle": run["gc_cpu_ms"] / n,
        "compulsory_cpu_ms_per_cycle": run["compulsory_cpu_ms"] / n,
        "thread_cpu_ms_per_cycle": lab.get("thread_cpu_ms", 0) / max(lab.get("cycles_with_lab", 0), 1),
        "page_scan_density": lab.get("objects_per_page_visit"),
        "idle_share": run.get("idle_share"),
        "cycles": n,
    }
keys = list(figures({"run": {"cycles": 1, "gc_cpu_ms": 0, "compulsory_cpu_ms": 0}}).keys())
print("| shape | marker | " + " | ".join(keys) + " |")
print("|---|---|" + "---|" * len(keys))
for shape in ["tree", "map", "graph", "pointer", "scalar"]:
    for m in ["legacy", "greentea"]:
        runs = [json.load(open(f)) for f in sorted(glob.glob(f"{out}/lab_{shape}_{m}_r*.json"))]
        figs = [figures(r) for r in runs]
        cells = []
        for k in keys:
            v = [x[k] for x in figs if x.get(k) is not None]
            if not v:
                cells.append("-")
                continue
            f = lambda x: f"{x:.3g}"
            cells.append(f"{f(statistics.median(v))} [{f(min(v))}-{f(max(v))}]")
        checks = all(all(x == 0 for x in r["lab"]["checks"].values()) for r in runs)
        print(f"| {shape} | {m} | " + " | ".join(cells) + " |" + ("" if checks else " CHECKS FAILED"))
PY
