package exec

import (
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// syncRebuildMax: an oplog of at most this many entries is replayed into
// the session table before New returns (tests, the simulator, small
// nodes: deterministic, and fast). A larger one is replayed in the
// background, so startup does not wait for reading up to rebuildWindow
// entries (seconds on a node with a full oplog); the table's lookups wait
// for it instead (session/ready.go).
const syncRebuildMax = 5_000

// rebuildChunk is how many entries one background read takes.
const rebuildChunk = 5_000

// rebuild is the background replay's state.
type rebuild struct {
	stop chan struct{}
	wg   sync.WaitGroup
}

// startRebuild rebuilds the session records, in the background when the
// oplog is large.
func (e *Engine) startRebuild() {
	if e.cat.Oplog().Count() <= syncRebuildMax {
		if err := e.rebuildSessions(); err != nil {
			e.log.Error("cannot rebuild retryable-write records from the oplog", "err", err)
		}
		return
	}
	done := e.sessions.StartRebuild()
	e.rebuild.stop = make(chan struct{})
	e.rebuild.wg.Add(1)
	go func() {
		defer e.rebuild.wg.Done()
		defer done()
		if err := e.rebuildSessionsUntil(e.rebuild.stop); err != nil {
			e.log.Error("cannot rebuild retryable-write records from the oplog", "err", err)
		}
	}()
}

// stopRebuild stops a background replay and waits for it (Close: the
// catalog closes after the engine).
func (e *Engine) stopRebuild() {
	if e.rebuild.stop != nil {
		close(e.rebuild.stop)
		e.rebuild.wg.Wait()
		e.rebuild.stop = nil
	}
}

// rebuildSessionsUntil replays the newest rebuildWindow entries, newest
// chunk first (Record keeps the newest transaction in any order), until
// stop is closed.
func (e *Engine) rebuildSessionsUntil(stop <-chan struct{}) error {
	var before bson.Timestamp
	for left := rebuildWindow; left > 0; {
		select {
		case <-stop:
			return nil
		default:
		}
		raws, err := e.cat.Oplog().ReadReverse(before, min(left, rebuildChunk))
		if err != nil || len(raws) == 0 {
			return err
		}
		for _, raw := range raws {
			d, err := (&Row{Raw: raw}).decoded()
			if err != nil {
				return err
			}
			e.sessions.Observe(d)
		}
		t, i, ok := bson.Raw(raws[len(raws)-1]).Lookup("ts").TimestampOK()
		if !ok {
			return fmt.Errorf("exec: oplog entry without ts")
		}
		before, left = bson.Timestamp{T: t, I: i}, left-len(raws)
	}
	return nil
}
