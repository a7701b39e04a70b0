// Command setgcpercent records a GODEBUG=gctrace=1 trace in which GOGC
// changes mid-run: it keeps a live heap of -live-mb MiB of 128-byte
// pointerful objects (plus a fixed pool of 1/8 of that size that they point
// into), replaces them at random until -total-mb MiB have been allocated, and
// once half of that is allocated it waits for the next GC
// cycle to complete and immediately calls debug.SetGCPercent(-to).
//
// The starting value is set with debug.SetGCPercent(-from) at the top of
// main (so it does not depend on $GOGC; use GOGC=<from> anyway so that the
// runtime's first cycles before main also match). The program prints, on
// stdout, the number of completed GC cycles at the switch: cycles 1..N ran
// with -from, and cycle N+1 is the first whose gctrace goal is computed with
// -to (unless the stdout line says a cycle started during the switch).
//
// Standard library only.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

type obj struct {
	next *obj
	peer *obj
	pad  [112]byte // 128 bytes in all
}

func cycles(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func main() {
	from := flag.Int("from", 100, "GOGC at the start (debug.SetGCPercent)")
	to := flag.Int("to", 400, "GOGC after the switch")
	liveMB := flag.Int("live-mb", 32, "live heap in MiB")
	totalMB := flag.Int("total-mb", 2048, "total MiB to allocate")
	maxSec := flag.Float64("maxsec", 20, "safety cap on the churn loop")
	flag.Parse()
	start := time.Now()
	deadline := start.Add(time.Duration(*maxSec * float64(time.Second)))

	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/gogc:percent"}}
	prev := debug.SetGCPercent(*from)
	fmt.Printf("setgcpercent: go=%s GOMAXPROCS=%d GOGC env=%q runtime-gogc-before-main=%d from=%d to=%d live-mb=%d total-mb=%d cycles-at-start=%d\n",
		runtime.Version(), runtime.GOMAXPROCS(0), os.Getenv("GOGC"), prev, *from, *to, *liveMB, *totalMB, cycles(s))

	const size = 128
	n := (*liveMB << 20) / size
	total := (*totalMB << 20) / size
	// a fixed pool (1/8 of the live size) that every churned object points
	// into, so the heap has pointers to trace but no retention chains
	pool := make([]*obj, n/8)
	for i := range pool {
		pool[i] = &obj{}
	}
	live := make([]*obj, n)
	for i := range live {
		live[i] = &obj{peer: pool[i%len(pool)]}
	}
	x := uint64(88172645463325252)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }

	switched := false
	waiting := false
	var base uint64
	capped := false
	i := 0
	for ; i < total; i++ {
		if i&1023 == 0 && time.Now().After(deadline) {
			capped = true
			break
		}
		if !switched && i >= total/2 {
			if !waiting {
				waiting = true
				base = cycles(s)
			}
			if i&15 == 0 {
				if c := cycles(s); c != base {
					// a cycle has just completed: switch now, before the next one starts
					old := debug.SetGCPercent(*to)
					after := cycles(s)
					metrics.Read(s)
					note := ""
					if after != c {
						note = fmt.Sprintf(" WARNING: cycle count moved from %d to %d during the switch", c, after)
					}
					fmt.Printf("setgcpercent: switched %d -> %d after gc cycle %d (cycles completed at the call: %d, after: %d) at t=%.3fs since main, alloc %d MiB of %d; /gc/gogc:percent now %d%s\n",
						old, *to, c, c, after, time.Since(start).Seconds(), (i*size)>>20, *totalMB, s[1].Value.Uint64(), note)
					switched = true
				}
			}
		}
		k := int(rnd() % uint64(n))
		o := &obj{peer: pool[int(rnd()%uint64(len(pool)))]}
		o.pad[i&111] = byte(i)
		live[k] = o
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(pool)
	fmt.Printf("setgcpercent: done wall=%.3fs capped=%v allocated=%d MiB switched=%v cycles-total=%d\n",
		time.Since(start).Seconds(), capped, (i*size)>>20, switched, cycles(s))
}
