package applier

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
)

// BenchmarkApplyInsert measures a secondary applying insert entries
// (fetched batches of 500) against the primary's write of the same
// entries: one storage batch per entry (serial) against one per run.
func BenchmarkApplyInsert(b *testing.B) {
	p := openMem(b)
	coll := mustColl(b, p, "app", "c")
	mustIndex(b, p, coll, spec("x_1", d("x", 1)))
	const n = 10000
	for i := 0; i < n; i++ {
		mustInsert(b, p, coll, bson.D{{Key: "_id", Value: int64(i)}, {Key: "x", Value: int64(i % 100)},
			{Key: "pad", Value: "0123456789012345678901234567890123456789"}})
	}
	benchApply(b, entriesOf(b, p), 500)
}

// BenchmarkApplyMixed is BenchmarkApplyInsert with updates and deletes
// of the inserted documents interleaved.
func BenchmarkApplyMixed(b *testing.B) {
	p := openMem(b)
	coll := mustColl(b, p, "app", "c")
	mustIndex(b, p, coll, spec("x_1", d("x", 1)))
	const n = 4000
	for i := 0; i < n; i++ {
		mustInsert(b, p, coll, bson.D{{Key: "_id", Value: int64(i)}, {Key: "x", Value: int64(i % 100)}})
		if i >= 10 {
			mustUpdate(b, p, coll, int64(i-10), d("$set", d("x", int64(i))))
		}
		if i >= 20 && i%3 == 0 {
			mustDelete(b, p, coll, int64(i-20))
		}
	}
	benchApply(b, entriesOf(b, p), 500)
}

// BenchmarkApplySmall applies inserts in calls of two entries (a
// secondary under light load): runs must not cost more than serial.
func BenchmarkApplySmall(b *testing.B) {
	p := openMem(b)
	coll := mustColl(b, p, "app", "c")
	mustIndex(b, p, coll, spec("x_1", d("x", 1)))
	for i := 0; i < 2000; i++ {
		mustInsert(b, p, coll, bson.D{{Key: "_id", Value: int64(i)}, {Key: "x", Value: int64(i % 100)}})
	}
	benchApply(b, entriesOf(b, p), 2)
}

// benchApply applies entries to fresh catalogs in calls of per entries,
// per mode (one batch per entry, or runs applied by 1, 2 or 4 writers);
// it reports the CPU and wall time per entry.
func benchApply(b *testing.B, entries []*oplog.Entry, per int) {
	for _, mode := range []struct {
		name string
		o    BatchOptions
	}{{"serial", BatchOptions{serial: true}}, {"runs1", BatchOptions{Writers: 1}},
		{"runs2", BatchOptions{Writers: 2}}, {"runs4", BatchOptions{Writers: 4}}} {
		b.Run(mode.name, func(b *testing.B) {
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := openMem(b)
				es := cloneEntries(entries)
				b.StartTimer()
				c0 := cpuTime()
				for j := 0; j < len(es); j += per {
					if _, err := ApplyBatchWith(s, es[j:min(j+per, len(es))], nil, mode.o); err != nil {
						b.Fatal(fmt.Errorf("apply: %w", err))
					}
				}
				cpu += cpuTime() - c0
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*len(entries)), "cpu-ns/entry")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(entries)), "ns/entry")
		})
	}
}

// cpuTime is the process's user+system CPU time so far (the machine is
// shared: wall time alone is noise).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
