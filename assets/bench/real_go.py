#!/usr/bin/env python3
"""Real-Go half of the gcscope fidelity table.

Reads ONLY the recorded Go traces in traces/go (read-only) and runs
the built gcscope binary on them.  Writes:
  /tmp/gcscope-real-go/real-go.json      every per-run figure (for re-checking)
  /tmp/gcscope-real-go/real-go-tables.md the markdown tables (pasted into real-go.md)

Usage:  python3 assets/bench/real_go.py [--gcscope /tmp/gcscope-bin] [--traces DIR]

Definitions (all per run first, then median [min-max] over runs):
  gc_cpu/cycle        = gcscope `gc_cpu_ms` / `cycles`  (sum of all five `ms cpu` fields / cycles)
                        -> the MEAN per cycle; this is what `gcscope compare` uses
  gc_cpu/cycle median = gcscope `per_cycle_median_ms.gc_cpu` (median over the run's cycles)
  compulsory          = the same minus idle mark CPU (`compulsory_cpu_ms`, `per_cycle_median_ms.compulsory_cpu`)
  metrics cross-check = sidecar /cpu/classes/gc/total:cpu-seconds / /gc/cycles/total:gc-cycles
  mark wall           = gcscope `mark_ms.p50` (median concurrent-mark clock time per cycle)
  idle share          = gcscope `idle_share` = idle/(assist+background+idle) summed over the run
  pause p50/p99       = gcscope `pause_ms` (sweep-term + mark-term clock per cycle, hdrhistogram)
  mark throughput     = per cycle: heap_live_mb (3rd heap number, MiB as Go prints it) /
                        ((assist+background+idle) ms cpu / 1000); median over the run's cycles.
                        Also the run aggregate sum(heap_live)/sum(mark cpu) and a compulsory
                        variant (assist+background only).
  direction           = 'lower'/'higher' when the per-run ranges of the two sides do not overlap,
                        '~' when they do (same rule as `gcscope compare` and seed 001).
                        Go 1.26.6 has ONE run per side: no range exists, so its direction is
                        called only when |delta| exceeds the Go 1.27.3 run-to-run spread of that
                        shape (largest (max-min)/median of the two 1.27.3 sides); else '~'.
"""
import argparse
import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys

SHAPES = ["tree", "map", "graph", "pointer", "scalar"]
GCS = ["legacy", "greentea"]

ap = argparse.ArgumentParser()
ap.add_argument("--gcscope", default="target/release/gcscope")
ap.add_argument("--traces", default="traces/go")
ap.add_argument("--out", default="/tmp/gcscope-real-go")
args = ap.parse_args()
T = args.traces


def gcscope_json(path):
    out = subprocess.run([args.gcscope, "summary", path, "--json"], check=True,
                         capture_output=True, text=True).stdout
    d = json.loads(out)
    assert len(d["runs"]) == 1, (path, len(d["runs"]))
    assert not d["problems"], (path, d["problems"])
    return d["runs"][0]


def gcscope_csv(path):
    out = subprocess.run([args.gcscope, "summary", path, "--csv"], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def run_figures(path):
    r = gcscope_json(path)
    rows = gcscope_csv(path)
    assert len(rows) == r["cycles"], path
    tp, tp_c = [], []
    sum_live = sum_mark = sum_comp = 0.0
    for row in rows:
        a, b, i = (float(row["cpu_assist_ms"]), float(row["cpu_background_ms"]),
                   float(row["cpu_idle_ms"]))
        live = float(row["heap_live_mb"])
        mark = a + b + i
        if mark > 0:
            tp.append(live / (mark / 1000.0))
        if a + b > 0:
            tp_c.append(live / ((a + b) / 1000.0))
        sum_live += live
        sum_mark += mark
        sum_comp += a + b
    maxlive = max(float(row["heap_live_mb"]) for row in rows)
    st = [row for row in rows if float(row["heap_live_mb"]) >= 0.5 * maxlive]
    st_gc = [float(row["gc_cpu_ms"]) for row in st]
    st_comp = [float(row["compulsory_cpu_ms"]) for row in st]
    st_mark = [float(row["cpu_assist_ms"]) + float(row["cpu_background_ms"]) + float(row["cpu_idle_ms"]) for row in st]
    st_live = [float(row["heap_live_mb"]) for row in st]
    steady = {
        "n": len(st),
        "gc_cpu_ms_per_cycle_mean": sum(st_gc) / len(st),
        "compulsory_ms_per_cycle_mean": sum(st_comp) / len(st),
        "mark_wall_median_ms": statistics.median(float(row["clock_mark_ms"]) for row in st),
        "heap_live_mean_mb": sum(st_live) / len(st),
        "tp_aggregate": sum(st_live) / (sum(st_mark) / 1000.0),
        "tp_median": statistics.median(l / (m / 1000.0) for l, m in zip(st_live, st_mark) if m > 0),
    }
    side = path[:-4] + ".metrics.json"
    met = json.load(open(side))
    m = met["metrics"]
    ncyc_m = m["/gc/cycles/total:gc-cycles"]
    f = {
        "file": os.path.basename(path),
        "go_version": met["go_version"],
        "gc_impl": met["gc_impl"],
        "args": met["args"],
        "cycles": r["cycles"],
        "gc_cpu_ms_total": r["gc_cpu_ms"],
        "compulsory_ms_total": r["compulsory_cpu_ms"],
        "gc_cpu_ms_per_cycle_mean": r["gc_cpu_ms"] / r["cycles"],
        "compulsory_ms_per_cycle_mean": r["compulsory_cpu_ms"] / r["cycles"],
        "gc_cpu_ms_per_cycle_median": r["per_cycle_median_ms"]["gc_cpu"],
        "compulsory_ms_per_cycle_median": r["per_cycle_median_ms"]["compulsory_cpu"],
        "metrics_gc_total_s": m["/cpu/classes/gc/total:cpu-seconds"],
        "metrics_gc_idle_s": m["/cpu/classes/gc/mark/idle:cpu-seconds"],
        "metrics_cycles": ncyc_m,
        "metrics_gc_ms_per_cycle": 1000 * m["/cpu/classes/gc/total:cpu-seconds"] / ncyc_m,
        "metrics_compulsory_ms_per_cycle": 1000 * (m["/cpu/classes/gc/total:cpu-seconds"]
                                                   - m["/cpu/classes/gc/mark/idle:cpu-seconds"]) / ncyc_m,
        "mark_wall_p50_ms": r["mark_ms"]["p50"],
        "idle_share": r["idle_share"],
        "pause_p50_ms": r["pause_ms"]["p50"],
        "pause_p99_ms": r["pause_ms"]["p99"],
        "pause_max_ms": r["pause_ms"]["max"],
        "final_gc_pct": r["final_gc_pct"],
        "heap_live_max_mb": r["heap_live_mb"]["max"],
        "tp_mb_per_mark_cpu_s_median": statistics.median(tp),
        "tp_mb_per_compulsory_mark_cpu_s_median": statistics.median(tp_c),
        "tp_mb_per_mark_cpu_s_aggregate": sum_live / (sum_mark / 1000.0),
        "wall_s": met["wall_seconds"],
        "steady": steady,
    }
    return f


def med_range(vals):
    return statistics.median(vals), min(vals), max(vals)


def direction(leg, gt):
    """leg, gt: lists of per-run values."""
    if max(gt) < min(leg):
        return "lower"
    if min(gt) > max(leg):
        return "higher"
    return "~"


# ------------------------------------------------------------------ gctrace=2 density
TOT_GT = re.compile(r"^scan: total (\d+)\+(\d+)\+(\d+)=(\d+) objs, (\d+)\+(\d+)=(\d+) spans$")
TOT_LEG = re.compile(r"^scan: total (\d+) objs$")


def density(path):
    """Independent re-parse of the `scan: total` lines, checked against gcscope."""
    A = B = C = S = D = 0
    leg = 0
    n_gt = n_leg = 0
    for line in open(path):
        line = line.rstrip("\n")
        mt = TOT_GT.match(line)
        if mt:
            a, b, c, t, s, d, n = map(int, mt.groups())
            assert a + b + c == t and s + d == n
            A += a; B += b; C += c; S += s; D += d
            n_gt += 1
            continue
        ml = TOT_LEG.match(line)
        if ml:
            leg += int(ml.group(1))
            n_leg += 1
    r = gcscope_json(path)
    sc = r["scan"]
    met = json.load(open(path[:-4] + ".metrics.json"))
    out = {"file": os.path.basename(path), "args": met["args"], "cycles": r["cycles"],
           "gcscope_scan": {k: v for k, v in sc.items() if k != "classes"}}
    top = sorted(sc["classes"], key=lambda c: -c["objects"])
    out["top_classes"] = [
        {"class": c["class"], "objects": c["objects"], "share": c["objects"] / sc["objects"],
         "objects_per_span_visit": c.get("objects_per_span_visit")} for c in top[:4]]
    if n_gt:
        objs = A + B + C
        out.update(collector="green_tea", objects=objs, A_single=A, B_sparse_objs=B,
                   C_dense_objs=C, S_sparse_spans=S, D_dense_spans=D,
                   objects_per_span_visit=objs / (A + S + D), span_scans=S + D,
                   dense_share=C / objs)
        assert abs(out["objects_per_span_visit"] - sc["objects_per_span_visit"]) < 1e-9, path
        assert objs == sc["objects"], path
    else:
        out.update(collector="legacy", objects=leg)
        assert leg == sc["objects"], path
    return out


def main():
    os.makedirs(args.out, exist_ok=True)
    data = {"go1.27.3": {}, "go1.26.6": {}, "gctrace2": {}}
    for shape in SHAPES:
        for gc in GCS:
            runs = [run_figures(f"{T}/go1.27.3_{gc}_{shape}_p2_r{n}.log") for n in (1, 2, 3)]
            data["go1.27.3"].setdefault(shape, {})[gc] = runs
            p = f"{T}/go1.26.6_{gc}_{shape}_p2_r1.log"
            if os.path.exists(p):
                data["go1.26.6"].setdefault(shape, {})[gc] = [run_figures(p)]
            data["gctrace2"].setdefault(shape, {})[gc] = density(
                f"{T}/go1.27.3_{gc}_{shape}_p2_gctrace2.log")
    json.dump(data, open(f"{args.out}/real-go.json", "w"), indent=1)
    md = render(data)
    open(f"{args.out}/real-go-tables.md", "w").write(md)
    print(md)


def fmt(x, nd=None):
    if x is None:
        return "n/a"
    if nd is None:
        ax = abs(x)
        nd = 0 if ax >= 100 else 1 if ax >= 10 else 2 if ax >= 1 else 3
    return f"{x:.{nd}f}"


def mr(vals, nd=None):
    m, lo, hi = med_range(vals)
    if len(vals) == 1:
        return fmt(m, nd)
    return f"{fmt(m, nd)} [{fmt(lo, nd)}–{fmt(hi, nd)}]"


def dpct(leg, gt):
    ml, mg = statistics.median(leg), statistics.median(gt)
    return f"{100 * (mg - ml) / ml:+.1f}%"


def spread127(data, shape, key):
    s = 0.0
    for gc in GCS:
        v = [r[key] for r in data["go1.27.3"][shape][gc]]
        m = statistics.median(v)
        s = max(s, (max(v) - min(v)) / m if m else 0)
    return s


def dir126(data, shape, key):
    leg = data["go1.26.6"][shape]["legacy"][0][key]
    gt = data["go1.26.6"][shape]["greentea"][0][key]
    d = (gt - leg) / leg
    sp = spread127(data, shape, key)
    if abs(d) <= sp:
        return "~"
    return "lower" if d < 0 else "higher"


def render(data):
    L = []
    v = "go1.27.3"
    L.append("#### Table A. GC CPU per cycle, Go 1.27.3 (3 runs a side: r1 r2 r3)\n")
    L.append("Per-run MEAN per cycle (run total / cycles, the figure `gcscope compare` reports), "
             "then median [min–max] over the 3 runs. Δ = median(Green Tea) vs median(legacy). "
             "Direction: `lower`/`higher` only when the per-run ranges do not overlap.\n")
    L.append("| shape | legacy GC CPU ms/cycle | Green Tea GC CPU ms/cycle | Δ | dir | "
             "legacy compulsory ms/cycle | Green Tea compulsory ms/cycle | Δ | dir | "
             "cycles L / GT (median) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for s in SHAPES:
        leg, gt = data[v][s]["legacy"], data[v][s]["greentea"]
        row = [s]
        for key in ("gc_cpu_ms_per_cycle_mean", "compulsory_ms_per_cycle_mean"):
            a = [r[key] for r in leg]; b = [r[key] for r in gt]
            row += [mr(a), mr(b), dpct(a, b), direction(a, b)]
        row.append(f"{statistics.median([r['cycles'] for r in leg]):.0f} / "
                   f"{statistics.median([r['cycles'] for r in gt]):.0f}")
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    L.append("#### Table B. Same, per-run MEDIAN per cycle, and per-run TOTAL GC CPU (Go 1.27.3)\n")
    L.append("Median per cycle = gcscope `per_cycle_median_ms`. Total = gcscope `gc_cpu_ms` over the run "
             "(s); metrics = sidecar `/cpu/classes/gc/total:cpu-seconds` (s), as a cross-check.\n")
    L.append("| shape | legacy GC CPU median/cycle ms | Green Tea | Δ | dir | legacy compulsory median/cycle ms | "
             "Green Tea | Δ | dir | legacy total GC CPU s (trace) | Green Tea | Δ | dir | "
             "legacy total (metrics) s | Green Tea (metrics) s |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in SHAPES:
        leg, gt = data[v][s]["legacy"], data[v][s]["greentea"]
        row = [s]
        for key, scale in (("gc_cpu_ms_per_cycle_median", 1), ("compulsory_ms_per_cycle_median", 1),
                           ("gc_cpu_ms_total", 1000)):
            a = [r[key] / scale for r in leg]; b = [r[key] / scale for r in gt]
            row += [mr(a), mr(b), dpct(a, b), direction(a, b)]
        row += [mr([r["metrics_gc_total_s"] for r in leg]), mr([r["metrics_gc_total_s"] for r in gt])]
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    L.append("#### Table C. Mark wall time, idle share, pauses (Go 1.27.3, median [min–max] of per-run values)\n")
    L.append("| shape | mark wall p50 ms L | GT | Δ | dir | idle share L | GT | pause p50 ms L | GT | "
             "pause p99 ms L | GT |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in SHAPES:
        leg, gt = data[v][s]["legacy"], data[v][s]["greentea"]
        a = [r["mark_wall_p50_ms"] for r in leg]; b = [r["mark_wall_p50_ms"] for r in gt]
        row = [s, mr(a), mr(b), dpct(a, b), direction(a, b)]
        for key, nd in (("idle_share", 3), ("pause_p50_ms", 3), ("pause_p99_ms", 3)):
            row += [mr([r[key] for r in leg], nd), mr([r[key] for r in gt], nd)]
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    L.append("#### Table D. Mark throughput, Go 1.27.3: MiB of marked heap (`->N MB` third number) per "
             "second of mark CPU (assist+background+idle)\n")
    L.append("Per run: the median over its cycles of heap_live/mark-CPU; then median [min–max] over runs. "
             "`compulsory` divides by assist+background only. `aggregate` = Σ heap_live / Σ mark CPU over the run.\n")
    L.append("| shape | legacy MB/s | Green Tea MB/s | Δ | dir | legacy compulsory MB/s | Green Tea | Δ | "
             "legacy aggregate MB/s | Green Tea aggregate | Δ |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in SHAPES:
        leg, gt = data[v][s]["legacy"], data[v][s]["greentea"]
        row = [s]
        a = [r["tp_mb_per_mark_cpu_s_median"] for r in leg]; b = [r["tp_mb_per_mark_cpu_s_median"] for r in gt]
        row += [mr(a, 0), mr(b, 0), dpct(a, b), direction(a, b)]
        a = [r["tp_mb_per_compulsory_mark_cpu_s_median"] for r in leg]
        b = [r["tp_mb_per_compulsory_mark_cpu_s_median"] for r in gt]
        row += [mr(a, 0), mr(b, 0), dpct(a, b)]
        a = [r["tp_mb_per_mark_cpu_s_aggregate"] for r in leg]; b = [r["tp_mb_per_mark_cpu_s_aggregate"] for r in gt]
        row += [mr(a, 0), mr(b, 0), dpct(a, b)]
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    L.append("#### Table D2. Steady-state cycles only, Go 1.27.3 (cycles whose marked heap is >= 50% of the run's "
             "largest marked heap; drops the heap-growth cycles at start-up)\n")
    L.append("Per run: mean GC CPU per steady cycle, median mark wall of those cycles, and Σ heap_live / Σ mark CPU "
             "(MiB/s); then median [min–max] over the 3 runs.\n")
    L.append("| shape | steady cycles L / GT | mean live MiB L / GT | GC CPU ms/cycle L | GT | Δ | dir | "
             "compulsory ms/cycle L | GT | Δ | dir | mark wall median ms L | GT | Δ | throughput MiB/s L | GT | Δ | dir |")
    L.append("|" + "---|" * 18)
    for s in SHAPES:
        leg = [r["steady"] for r in data[v][s]["legacy"]]; gt = [r["steady"] for r in data[v][s]["greentea"]]
        row = [s, f"{mr([x['n'] for x in leg], 0)} / {mr([x['n'] for x in gt], 0)}",
               f"{statistics.median([x['heap_live_mean_mb'] for x in leg]):.0f} / "
               f"{statistics.median([x['heap_live_mean_mb'] for x in gt]):.0f}"]
        for key, withdir in (("gc_cpu_ms_per_cycle_mean", 1), ("compulsory_ms_per_cycle_mean", 1),
                             ("mark_wall_median_ms", 0), ("tp_aggregate", 1)):
            a = [x[key] for x in leg]; b = [x[key] for x in gt]
            row += [mr(a, 0 if key == "tp_aggregate" else None), mr(b, 0 if key == "tp_aggregate" else None), dpct(a, b)]
            if withdir:
                row.append(direction(a, b))
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    L.append("#### Table P. Per-run values behind Tables A–D (Go 1.27.3 and 1.26.6)\n")
    L.append("| file | cycles | GC CPU s (trace) | GC CPU s (metrics) | ms/cycle mean | compulsory ms/cycle mean | "
             "ms/cycle median | compulsory median | mark wall p50 ms | idle share | pause p50 | pause p99 | "
             "throughput MiB/s (median) | wall s |")
    L.append("|" + "---|" * 14)
    for ver in ("go1.27.3", "go1.26.6"):
        for s in SHAPES:
            for gc in GCS:
                for r in data[ver].get(s, {}).get(gc, []):
                    L.append(f"| `{r['file']}` | {r['cycles']} | {r['gc_cpu_ms_total']/1000:.2f} | "
                             f"{r['metrics_gc_total_s']:.2f} | {fmt(r['gc_cpu_ms_per_cycle_mean'])} | "
                             f"{fmt(r['compulsory_ms_per_cycle_mean'])} | {fmt(r['gc_cpu_ms_per_cycle_median'])} | "
                             f"{fmt(r['compulsory_ms_per_cycle_median'])} | {fmt(r['mark_wall_p50_ms'])} | "
                             f"{r['idle_share']:.3f} | {r['pause_p50_ms']:.3f} | {r['pause_p99_ms']:.3f} | "
                             f"{r['tp_mb_per_mark_cpu_s_median']:.0f} | {r['wall_s']:.2f} |")
    L.append("")
    L.append("#### Table E. Page scan density, Go 1.27.3 `GODEBUG=gctrace=2` runs (one run a side; "
             "separate, shorter runs: see args)\n")
    L.append("objects per span visit = (A+B+C)/(A+S+D) from `scan: total A+B+C=T objs, S+D=N spans`, summed over the "
             "run (gcscope `scan.objects_per_span_visit`, re-derived by the script from the raw lines). "
             "span scans = S+D (multi-object span scans); A = objects scanned one at a time "
             "(scanobject or the single-object fast path). dense share = C/(A+B+C) (AVX-512 kernel). "
             "Legacy prints only `scan: total N objs`: it has NO span counts, so no density.\n")
    L.append("| shape | args | GT objects | GT A (one-at-a-time) | GT span scans S+D | GT objects/span visit | "
             "GT dense share | main scanned class(es), GT density | legacy objects (no density) |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for s in SHAPES:
        g = data["gctrace2"][s]["greentea"]; l = data["gctrace2"][s]["legacy"]
        cls = "; ".join(
            f"{'large' if c['class'] == 0 else str(c['class']) + ' B'}: {100 * c['share']:.1f}% of objs, "
            f"{fmt(c['objects_per_span_visit'], 1)}/visit"
            for c in g["top_classes"] if c["share"] >= 0.05)
        a = " ".join(g["args"][g["args"].index("-scale"):]) if "-scale" in g["args"] else "defaults"
        L.append(f"| {s} | `{a}` | {g['objects']:,} | {g['A_single']:,} | {g['span_scans']:,} | "
                 f"{g['objects_per_span_visit']:.1f} | {g['dense_share']:.2f} | {cls} | {l['objects']:,} |")
    L.append("")
    v = "go1.26.6"
    L.append("#### Table F. Go 1.26.6, r1 only (ONE run a side)\n")
    L.append("No range exists with n=1; `dir` is called only when |Δ| exceeds the Go 1.27.3 run-to-run "
             "spread for that shape and metric (largest (max−min)/median of the two 1.27.3 sides), else `~`.\n")
    L.append("| shape | GC CPU ms/cycle (mean) L | GT | Δ | dir | compulsory ms/cycle (mean) L | GT | Δ | dir | "
             "GC CPU ms/cycle (median) L | GT | compulsory (median) L | GT | mark wall p50 ms L | GT | idle share L | GT | "
             "pause p50 L | GT | pause p99 L | GT | throughput MB/s L | GT | cycles L / GT |")
    L.append("|" + "---|" * 25)
    for s in SHAPES:
        if s not in data[v]:
            continue
        l = data[v][s]["legacy"][0]; g = data[v][s]["greentea"][0]
        row = [s]
        for key in ("gc_cpu_ms_per_cycle_mean", "compulsory_ms_per_cycle_mean"):
            row += [fmt(l[key]), fmt(g[key]), f"{100 * (g[key] - l[key]) / l[key]:+.1f}%", dir126(data, s, key)]
        for key, nd in (("gc_cpu_ms_per_cycle_median", None), ("compulsory_ms_per_cycle_median", None),
                        ("mark_wall_p50_ms", None), ("idle_share", 3), ("pause_p50_ms", 3),
                        ("pause_p99_ms", 3), ("tp_mb_per_mark_cpu_s_median", 0)):
            row += [fmt(l[key], nd), fmt(g[key], nd)]
        row.append(f"{l['cycles']} / {g['cycles']}")
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    return "\n".join(L)


if __name__ == "__main__":
    main()
