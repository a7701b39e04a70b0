// Command leak is a steady allocator with a deliberate leak, used to record a
// real GODEBUG=gctrace=1 trace whose live heap keeps rising after start-up.
//
// Every -tick it allocates -batch objects of -obj-bytes bytes each (a small
// struct holding a pointer to a byte slice), keeps every -keep-every'th one
// forever in a growing slice and drops the rest. With the defaults that is
// about 100 MB/s allocated and 10 MB/s retained, so the live heap grows to
// about 200 MB over the default 20 s. Standard library only.
package main

import (
	"flag"
	"fmt"
	"runtime"
	"time"
)

type rec struct {
	id   int
	data []byte
	prev *rec
}

var (
	dur       = flag.Duration("dur", 20*time.Second, "how long to run")
	tick      = flag.Duration("tick", 10*time.Millisecond, "allocation batch interval")
	batch     = flag.Int("batch", 1024, "objects allocated per tick")
	objBytes  = flag.Int("obj-bytes", 1000, "payload bytes per object")
	keepEvery = flag.Int("keep-every", 10, "keep one object in this many forever")
)

var leaked []*rec // grows for the whole run: the leak

func main() {
	flag.Parse()
	start := time.Now()
	fmt.Printf("leak: go=%s GOMAXPROCS=%d dur=%s tick=%s batch=%d obj-bytes=%d keep-every=%d\n",
		runtime.Version(), runtime.GOMAXPROCS(0), *dur, *tick, *batch, *objBytes, *keepEvery)
	var last *rec
	var allocated, kept int64
	var scratch []*rec // short-lived garbage, dropped every tick
	n := 0
	for time.Since(start) < *dur {
		scratch = scratch[:0]
		for i := 0; i < *batch; i++ {
			r := &rec{id: n, data: make([]byte, *objBytes), prev: last}
			r.data[0] = byte(n)
			n++
			allocated += int64(*objBytes) + 48
			if n%*keepEvery == 0 {
				leaked = append(leaked, r)
				last = r
				kept += int64(*objBytes) + 48
			} else {
				scratch = append(scratch, r)
			}
		}
		time.Sleep(*tick)
	}
	runtime.KeepAlive(scratch)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("leak: done wall=%.3fs objects=%d allocated_mb=%d kept_objects=%d kept_mb=%d heap_alloc_mb=%d num_gc=%d\n",
		time.Since(start).Seconds(), n, allocated>>20, len(leaked), kept>>20, ms.HeapAlloc>>20, ms.NumGC)
}
