package applier

// Applying a run of CRUD entries in one storage batch.
//
// Invariants:
//   - A run is a maximal sequence of consecutive entries of one
//     ApplyBatchWith call that are not commands (op i, u, d or n), at most
//     maxRun long. A "c" entry (DDL, applyOps) is a barrier: it is applied
//     alone, in a batch of its own, as before.
//   - A run's effects, its entries and appliedThrough (its last entry)
//     commit in ONE storage batch (catalog.Apply): readers and a crash see
//     all of the run or none of it, so the oplog, the data and
//     appliedThrough still describe one prefix of the primary's history
//     and no truncate-after point or minValid write is needed.
//   - Inside the batch the entries are applied in ts order (each
//     writer's share in ts order, with several writers) and document
//     reads see the batch's earlier writes (catalog.Writer.Document), so
//     each document's entries apply in order, exactly as one batch per
//     entry would: the catalogs are identical (TestApplyRunsMatchSerial,
//     TestApplyParallelWritersMatchSerial).
//   - A run of at least parallelMin entries is applied by up to Writers
//     writers in parallel (apply_parallel.go), unless relaxed (initial
//     sync), where only insert documents are encoded on several
//     goroutines first; a smaller run is applied inline, so one- and
//     two-entry batches (light load) take the same path and cost as
//     before.
//   - In steady state (BatchOptions.FreshInserts) an insert's document is
//     stored without probing for its _id (catalog.Writer.InsertFresh).
//     The entry itself is stored as its source sent it when the fetcher
//     kept its bytes (oplog.Entry.Raw), else encoded again.
//   - If a run's batch fails, the run is applied again one entry per
//     batch: the entries before the failing one stay applied and the
//     error is the one entry-by-entry application returns (ApplyBatch's
//     contract).

import (
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
)

const (
	// maxRun bounds the entries of one run's batch (its memory).
	maxRun = 1000
	// parallelMin is the smallest run prepared by several goroutines.
	parallelMin = 64
)

// DefaultWriters is the number of writers that apply a large run when
// BatchOptions.Writers is 0 (replWriterThreadCount's default here;
// MongoDB's is 16): GOMAXPROCS, at least 2.
// The server's replWriterThreadCount replaces it (SetWriterThreadCount).
func DefaultWriters() int {
	if n := writerThreadCount.Load(); n > 0 {
		return int(n)
	}
	return max(2, runtime.GOMAXPROCS(0))
}

// writerThreadCount is the process's replWriterThreadCount (0: unset).
var writerThreadCount atomic.Int32

// SetWriterThreadCount sets DefaultWriters for the process: mongod's
// startup-only replWriterThreadCount (1-256; the caller checks the
// bounds). Call it before replication starts.
func SetWriterThreadCount(n int) { writerThreadCount.Store(int32(n)) }

// runLen returns how many leading entries form a run (0: entries[0] is a
// barrier, applied alone).
func runLen(entries []*oplog.Entry, o BatchOptions) int {
	if o.serial {
		return 0
	}
	n := 0
	for n < len(entries) && n < maxRun && entries[n].Op != oplog.OpCommand {
		n++
	}
	return n
}

// applyRun applies run (no command entry, ts ascending) in one batch; on
// a failure it applies it again entry by entry (see above).
func applyRun(cat *catalog.Catalog, run []*oplog.Entry, log *slog.Logger, o BatchOptions) (uint64, error) {
	if !parallelRun(run, o) {
		prepare(run, o.writers())
	}
	r, err := cat.Apply(func(w *catalog.Writer) error {
		return runInBatch(cat, w, run, log, o)
	})
	if err != nil {
		log.Debug("oplog application: a run failed, applying it entry by entry", "entries", len(run), "error", err)
		return applySerial(cat, run, log, o)
	}
	return r.Seq, nil
}

// runInBatch adds the run's effects, entries and appliedThrough to w.
// Entries the local oplog holds already (at or before its top) are
// checked, not applied again. Every effect comes before the first oplog
// slot is reserved: a run that fails in an effect reserved no ts, so
// applyRun can apply its entries again one by one.
func runInBatch(cat *catalog.Catalog, w *catalog.Writer, run []*oplog.Entry, log *slog.Logger, o BatchOptions) error {
	if o.Relaxed != nil {
		w.RelaxUnique(o.Relaxed)
	}
	top, _ := cat.Oplog().Top()
	for len(run) > 0 && !run[0].TS.After(top) {
		if err := checkPresent(cat, run[0]); err != nil {
			return err
		}
		run = run[1:]
	}
	if len(run) == 0 {
		return nil
	}
	if err := runEffects(cat, w, run, log, o); err != nil {
		return err
	}
	for _, e := range run {
		if err := w.AppendOplog(e); err != nil {
			return err
		}
	}
	return markers.PutAppliedThrough(w, run[len(run)-1].OpTime())
}

// runEffects adds the effects of run to w: with several writers for a
// large run (apply_parallel.go), else in order by this goroutine.
func runEffects(cat *catalog.Catalog, w *catalog.Writer, run []*oplog.Entry, log *slog.Logger, o BatchOptions) error {
	if parallelRun(run, o) {
		return effectsParallel(cat, w, run, log, o)
	}
	for _, e := range run {
		a := &entryApply{cat: cat, w: w, e: e, log: log, relaxed: o.Relaxed != nil, fresh: o.FreshInserts}
		if err := a.effect(); err != nil {
			return err
		}
	}
	return nil
}

// applySerial applies entries one batch each, stopping at the first error.
func applySerial(cat *catalog.Catalog, entries []*oplog.Entry, log *slog.Logger, o BatchOptions) (uint64, error) {
	var last uint64
	for _, e := range entries {
		seq, err := applyEntry(cat, e, log, o)
		if err != nil {
			return last, fmt.Errorf("applier: apply %s %s at %v (term %d): %w", e.Op, e.NS, e.TS, e.Term, err)
		}
		last = max(last, seq)
	}
	return last, nil
}

// prepare encodes the documents of run's insert entries (ORaw), on up to
// writers goroutines each taking a contiguous share when the run is
// large, inline otherwise. An entry it cannot encode is left for its
// application to report.
func prepare(run []*oplog.Entry, writers int) {
	if len(run) < parallelMin || writers < 2 {
		prepareRange(run)
		return
	}
	share := (len(run) + writers - 1) / writers
	var wg sync.WaitGroup
	for lo := 0; lo < len(run); lo += share {
		part := run[lo:min(lo+share, len(run))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			prepareRange(part)
		}()
	}
	wg.Wait()
}

// prepareRange encodes the insert documents of entries.
func prepareRange(entries []*oplog.Entry) {
	for _, e := range entries {
		if e.Op != oplog.OpInsert || e.ORaw != nil || e.O == nil {
			continue
		}
		if raw, err := bsonx.Encode(e.O); err == nil {
			e.ORaw = raw
		}
	}
}
