#!/usr/bin/env bash
# Re-records the pacer corpus in traces/go/pacer/ (see README.md).
#
#   ./record.sh [group ...]     groups: sweep off limit floor setgc gorun loaded (default: all)
#
# Runs ONE program at a time. Every run appends a row to runs.tsv (wall time,
# load average before/after, exact command). Existing files of a re-recorded
# run are overwritten.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GODIR=$(cd "$HERE/.." && pwd)
export PATH=/work/venv-go127/bin:$PATH GOTOOLCHAIN=local GOFLAGS=-mod=mod
export GOCACHE=${GOCACHE:-/tmp/gocache-pacer} GOPATH=${GOPATH:-/tmp/gopath-pacer}
export GOMAXPROCS=2
GCWORK=${GCWORK:-/tmp/gcwork}
SETGC=${SETGC:-/tmp/setgcpercent}
RUNS=$HERE/runs.tsv

build() {
	[ -x "$GCWORK" ] || (cd "$GODIR/recorder/gcwork" && go build -o "$GCWORK" .) || exit 1
	[ -x "$SETGC" ] || (cd "$GODIR/recorder-extra/setgcpercent" && go build -o "$SETGC" .) || exit 1
}

[ -f "$RUNS" ] || printf 'file\tstarted_utc\twall_s\tload1_before\tload1_after\tgc_lines\tcommand\n' > "$RUNS"

# rec NAME GOGC GOMEMLIMIT(- = unset) PROGRAM ARGS...
# stderr -> NAME.log (the trace), stdout -> NAME.stdout.txt, gcwork sidecar -> NAME.metrics.json
rec() {
	local name=$1 gogc=$2 lim=$3; shift 3
	local envs=(GODEBUG=gctrace=1 GOGC=$gogc)
	[ "$lim" != "-" ] && envs+=(GOMEMLIMIT=$lim)
	local sidecar=()
	[ "$(basename "$1")" = gcwork ] && sidecar=(-metrics "$HERE/$name.metrics.json")
	local lb la t0 t1 wall
	lb=$(cut -d' ' -f1 /proc/loadavg)
	t0=$(date +%s.%N)
	env "${envs[@]}" "$@" "${sidecar[@]}" 2> "$HERE/$name.log" > "$HERE/$name.stdout.txt"
	t1=$(date +%s.%N)
	la=$(cut -d' ' -f1 /proc/loadavg)
	wall=$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")
	local n; n=$(grep -c '^gc ' "$HERE/$name.log")
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$(date -u -d @"${t0%.*}" +%FT%TZ)" "$wall" "$lb" "$la" "$n" \
		"$([ "$GOCACHE" != /tmp/gocache-pacer ] && echo "GOCACHE=$GOCACHE(emptied) ")${envs[*]} GOMAXPROCS=2 $(echo "$*" | sed "s#$GCWORK#gcwork#; s#$SETGC#setgcpercent#") ${sidecar:+-metrics $name.metrics.json}" >> "$RUNS"
	echo "$name: ${wall}s, $n gc lines, load $lb -> $la"
}

# ---- workloads (the same flags in every group, so that a limited run's
# ---- unlimited twin is the sweep run of the same mode at GOGC=100)
declare -A FLAGS BASE
FLAGS[tree]="-mode tree -tree-long 19 -tree-short 16";      BASE[tree]=0.8
FLAGS[graph]="-mode graph -graph-n 262144 -graph-pool-mb 4"; BASE[graph]=0.25
FLAGS[pointer]="-mode pointer -live-mb 16";                 BASE[pointer]=0.4
FLAGS[scalar]="-mode scalar -live-mb 64";                   BASE[scalar]=0.25
FLAGS[map]="-mode map -map-n 30000";                        BASE[map]=0.5
# per-GOGC multiplier of the base scale, so that every GOGC gets a usable number of cycles
declare -A MULT=([25]=0.4 [50]=0.6 [100]=1 [200]=1.5 [400]=2)
sc() { printf '%g' "$(echo "${BASE[$1]} * ${MULT[$2]}" | bc -l)"; }   # sc MODE GOGC
MAXSEC=18

g_sweep() {
	for mode in tree map graph pointer scalar; do
		for g in 25 50 100 200 400; do
			rec sweep_${mode}_gogc$g $g - $GCWORK ${FLAGS[$mode]} -scale $(sc $mode $g) -maxsec $MAXSEC
		done
	done
}

g_off() {
	rec off_graph_lim64 off 64MiB $GCWORK ${FLAGS[graph]} -scale $(sc graph 100) -maxsec $MAXSEC
	rec off_pointer_lim128 off 128MiB $GCWORK ${FLAGS[pointer]} -scale $(sc pointer 100) -maxsec $MAXSEC
	rec off_scalar_lim256 off 256MiB $GCWORK ${FLAGS[scalar]} -scale $(sc scalar 100) -maxsec $MAXSEC
}

# limits at GOGC=100: binding / tight (~1.1-1.2x live, short) / not binding (~4x the twin's peak goal)
# values chosen from the sweep_*_gogc100 twins (see README.md)
g_limit() {
	# twin peak goals (sweep_*_gogc100): tree 64 MB, pointer 85 MB, scalar 198 MB
	rec limit_tree_gogc100_lim48 100 48MiB $GCWORK ${FLAGS[tree]} -scale $(sc tree 100) -maxsec $MAXSEC
	rec limit_tree_gogc100_lim30tight 100 30MiB $GCWORK ${FLAGS[tree]} -scale $(sc tree 100) -maxsec 8
	rec limit_tree_gogc100_lim256 100 256MiB $GCWORK ${FLAGS[tree]} -scale $(sc tree 100) -maxsec $MAXSEC
	rec limit_pointer_gogc100_lim64 100 64MiB $GCWORK ${FLAGS[pointer]} -scale $(sc pointer 100) -maxsec $MAXSEC
	rec limit_pointer_gogc100_lim40tight 100 40MiB $GCWORK ${FLAGS[pointer]} -scale $(sc pointer 100) -maxsec 8
	rec limit_pointer_gogc100_lim384 100 384MiB $GCWORK ${FLAGS[pointer]} -scale $(sc pointer 100) -maxsec $MAXSEC
	rec limit_scalar_gogc100_lim160 100 160MiB $GCWORK ${FLAGS[scalar]} -scale $(sc scalar 100) -maxsec $MAXSEC
	rec limit_scalar_gogc100_lim76tight 100 76MiB $GCWORK ${FLAGS[scalar]} -scale $(sc scalar 100) -maxsec 8
	rec limit_scalar_gogc100_lim800 100 800MiB $GCWORK ${FLAGS[scalar]} -scale $(sc scalar 100) -maxsec $MAXSEC
}

g_floor() {
	# tiny long-lived tree (depth 12, 128 KiB) and short trees of depth 12/13 (64-128 KiB):
	# live well under 1 MB, so the goal sits at the floor 4 MB*GOGC/100
	rec floor_tree_gogc100 100 - $GCWORK -mode tree -tree-long 12 -tree-short 12 -tree-iters 2400 -scale 1 -maxsec $MAXSEC
	rec floor_tree_gogc25 25 - $GCWORK -mode tree -tree-long 12 -tree-short 12 -tree-iters 2400 -scale 0.5 -maxsec $MAXSEC
	rec floor_tree_gogc400 400 - $GCWORK -mode tree -tree-long 12 -tree-short 12 -tree-iters 2400 -scale 4 -maxsec $MAXSEC
	# ~2 MiB live scalar heap at GOGC=400: GOGC goal ~5x2.x MB < floor 16 MB
	rec floor_scalar_gogc400 400 - $GCWORK -mode scalar -live-mb 2 -scale 0.1 -maxsec $MAXSEC
}

g_setgc() {
	rec setgc_100to400 100 - $SETGC -from 100 -to 400 -live-mb 32 -total-mb 2048 -maxsec $MAXSEC
	rec setgc_200to50 200 - $SETGC -from 200 -to 50 -live-mb 32 -total-mb 2048 -maxsec $MAXSEC
}

# `go run` from the gcwork directory: the go command's and the compiler's/linker's own
# gc lines come first (GODEBUG/GOGC are inherited by every process of the build)
g_gorun() {
	(cd "$GODIR/recorder/gcwork" &&
		rm -rf /tmp/gocache-pacer-cold &&
		GOCACHE=/tmp/gocache-pacer-cold rec gorun_graph_cold 100 - go run . -mode graph -scale 0.1 -maxsec 15 &&
		rec gorun_graph_warm 100 - go run . -mode graph -scale 0.1 -maxsec 15)
}

# two busy loops (one per core) while the program runs
g_loaded() {
	for g in 100 200; do
		(while :; do :; done) & L1=$!
		(while :; do :; done) & L2=$!
		rec loaded_graph_gogc$g $g - $GCWORK ${FLAGS[graph]} -scale $(sc graph $g) -maxsec $MAXSEC
		kill $L1 $L2
		wait $L1 $L2 2>/dev/null
		if ps -p $L1,$L2 > /dev/null; then echo "busy loops $L1 $L2 still running!"; ps -p $L1,$L2; fi
	done
}

build
groups=${*:-sweep off limit floor setgc gorun loaded}
for grp in $groups; do "g_$grp"; done
