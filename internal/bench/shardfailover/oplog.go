package shardfailover

import (
	"sync"
	"time"
)

// Operation kinds in an op record.
const (
	kindRead uint8 = iota
	kindUpdate
	kindInsert
)

// maxRecords caps the operation log (about 32 bytes each); operations
// beyond it are counted in dropped, not kept.
const maxRecords = 2_000_000

// maxClasses caps the distinct error classes; the rest share one more,
// "other".
const maxClasses = 64

// op is one client operation as the log keeps it.
type op struct {
	start, end time.Time
	shard      int16 // index into the cluster's shard names; -1 unknown
	kind       uint8
	class      uint16 // 0 = success; else classes[class-1]
}

func (o op) ok() bool { return o.class == 0 }

// opLog is every operation of a mode's run. Records are appended under
// mu; lastOK[s] is the end of the latest success on shard s.
type opLog struct {
	mu      sync.Mutex
	ops     []op                // REQUIRES: mu
	dropped int64               // REQUIRES: mu
	classes []string            // REQUIRES: mu
	classOf map[string]int      // REQUIRES: mu; class -> index+1
	lastOK  map[int16]time.Time // REQUIRES: mu
}

func newOpLog() *opLog {
	return &opLog{classOf: map[string]int{}, lastOK: map[int16]time.Time{}}
}

// record appends one operation; errClass is "" for a success.
func (l *opLog) record(start, end time.Time, shard int16, kind uint8, errClass string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := op{start: start, end: end, shard: shard, kind: kind}
	if errClass != "" {
		o.class = uint16(l.classLocked(errClass))
	} else if end.After(l.lastOK[shard]) {
		l.lastOK[shard] = end
	}
	if len(l.ops) >= maxRecords {
		l.dropped++
		return
	}
	l.ops = append(l.ops, o)
}

// classLocked returns the class's index+1, adding it if there is room.
// REQUIRES: l.mu
func (l *opLog) classLocked(c string) int {
	if i, ok := l.classOf[c]; ok {
		return i
	}
	if len(l.classes) >= maxClasses {
		c = "other"
		if i, ok := l.classOf[c]; ok {
			return i
		}
	}
	l.classes = append(l.classes, c)
	l.classOf[c] = len(l.classes)
	return len(l.classes)
}

// okSince reports whether an operation on shard succeeded after t.
func (l *opLog) okSince(shard int16, t time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastOK[shard].After(t)
}

// snapshot copies the records ending in [from, to] (in append order,
// which is only roughly end order: measure sorts), the class names and
// the dropped count.
func (l *opLog) snapshot(from, to time.Time) (ops []op, classes []string, dropped int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range l.ops {
		if !o.end.Before(from) && !o.end.After(to) {
			ops = append(ops, o)
		}
	}
	return ops, append([]string(nil), l.classes...), l.dropped
}
