package js

import (
	"runtime/metrics"
	"time"
)

// goja has no heap limit, so a long evaluation is watched: every
// heapPoll it reads the process's live heap and interrupts the
// evaluation once the heap has grown by MaxHeapGrowth since the watch
// began (a process-wide measure: concurrent work counts too, which is
// why the bound is generous). Evaluations shorter than heapPoll are never
// sampled and cost no goroutine.
const heapPoll = 10 * time.Millisecond

// MaxHeapGrowth is in bytes (mongod's jsHeapLimitMB defaults to 1100 MB);
// a variable so tests can lower it.
var MaxHeapGrowth uint64 = 1 << 30

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// heapWatch is one evaluation's watch; Stop ends it.
type heapWatch struct{ t *time.Timer }

func (w *heapWatch) Stop() { w.t.Stop() }

// watchHeap polls while live reports the evaluation still running and
// calls over once the heap has grown past MaxHeapGrowth.
func watchHeap(live func() bool, over func()) *heapWatch {
	w := &heapWatch{}
	var base uint64
	var poll func()
	poll = func() {
		if !live() {
			return
		}
		now := heapBytes()
		switch {
		case base == 0:
			base = now
		case now > base && now-base > MaxHeapGrowth:
			over()
			return
		}
		w.t.Reset(heapPoll)
	}
	w.t = time.AfterFunc(time.Hour, poll) // armed below, once w.t is set
	w.t.Reset(heapPoll)
	return w
}
