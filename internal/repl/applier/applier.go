// Package applier applies fetched oplog batches to the local catalog on a
// secondary, honouring secondaryDelaySecs, and reports the applied and
// durable OpTimes. ApplyBatch (apply.go) is the oplog application itself,
// written through the catalog's write primitive; initial sync uses it too.
//
// Invariants:
//   - Entries are applied strictly in order through ApplyBatch, which
//     writes each entry (with its primary's ts and term) and its effect in
//     one storage batch with the appliedThrough marker: a crash at any
//     point leaves a consistent prefix (see apply.go).
//   - With a delay, an entry is applied no earlier than its wall time plus
//     the delay (by the applier's clock); waiting is ctx-cancellable.
//   - Last() only grows, except through Reset (rollback, initial sync).
//
// Batching (apply_run.go): consecutive CRUD entries of a fetched batch
// commit as one storage batch (a run), command entries alone. A large run
// is applied by several writers (apply_parallel.go; Options.Writers, the
// server's replWriterThreadCount): its entries are partitioned by
// document (by collection where writes of different documents may meet:
// unique secondary indexes, capped, clustered, time-series), each writer
// prepares its own storage batch in parallel, and the merged batches,
// the run's oplog entries and appliedThrough still commit as ONE batch,
// so the crash invariant above holds as it is (MongoDB writes the oplog
// first with a truncate-after point and minValid instead; one atomic
// commit makes that unnecessary here).
//
// TODO(#15): the merge and the commit stay on one goroutine under the
// catalog's write lock (Pebble re-indexes each merged write); a run is
// also capped at maxRun entries, so a catching-up secondary alternates
// parallel preparation with serial commits.
package applier

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/clock"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Clock is the applier's time source (a manual clock in tests).
type Clock = clock.Sleeper

// Options configure New.
type Options struct {
	Logger *slog.Logger
	// SecondaryDelay is the member's secondaryDelaySecs.
	SecondaryDelay time.Duration
	// Clock defaults to the wall clock.
	Clock Clock
	// Writers is how many writers apply a large run (BatchOptions): the
	// server's replWriterThreadCount; 0: DefaultWriters().
	Writers int
	// FreshInserts lets Apply skip the existing-document probe of insert
	// entries (BatchOptions.FreshInserts) while the data is consistent
	// (the oplog top at or after minValid). The sync loop's steady state
	// sets it.
	FreshInserts bool
}

// Applier applies batches to one catalog. Apply calls must not overlap;
// Last and Durable may be called concurrently with them.
type Applier struct {
	cat   *catalog.Catalog
	opts  Options
	mu    sync.Mutex
	last  topology.OpTime
	delay time.Duration
	// baseSeq is the storage commit seq at the last Reset: entries the node
	// wrote before (as primary, or before a restart) are durable past it.
	baseSeq uint64
	// appliedSeq is the storage commit seq of the last entry Apply wrote.
	appliedSeq uint64
	// consistent: since the last Reset, the oplog top has reached minValid
	// (only rollback and initial sync raise minValid, and both Reset after).
	// Saves a marker read per batch (3 Pebble gets, 7 % of a secondary's
	// CPU under small w:"majority" batches).
	consistent bool
}

// New returns an applier whose Last() starts at the catalog's oplog top.
func New(cat *catalog.Catalog, opts Options) *Applier {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real()
	}
	a := &Applier{cat: cat, opts: opts, delay: opts.SecondaryDelay}
	a.Reset()
	return a
}

// Reset re-reads the last applied OpTime from the oplog (after a rollback
// or an initial sync changed it underneath).
func (a *Applier) Reset() {
	ts, term := a.cat.Oplog().Top()
	seq := a.cat.Engine().Metrics().Committed
	a.mu.Lock()
	a.last = topology.OpTime{TS: ts, Term: term}
	a.baseSeq = seq
	a.consistent = false
	a.mu.Unlock()
}

// SetDelay changes secondaryDelaySecs (a reconfig).
func (a *Applier) SetDelay(d time.Duration) {
	a.mu.Lock()
	a.delay = d
	a.mu.Unlock()
}

// Last returns the OpTime of the last applied entry.
func (a *Applier) Last() topology.OpTime {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// Apply applies batch in order and returns the last applied OpTime. On an
// error (or ctx end while delayed) the entries before it stay applied and
// last says how far it got.
func (a *Applier) Apply(ctx context.Context, batch []*oplog.Entry) (last topology.OpTime, err error) {
	for len(batch) > 0 {
		n, err := a.ready(ctx, batch)
		if err != nil {
			return a.Last(), err
		}
		bo := BatchOptions{Writers: a.opts.Writers, FreshInserts: a.freshInserts()}
		seq, err := ApplyBatchWith(a.cat, batch[:n], a.opts.Logger, bo)
		a.noteSeq(seq)
		if err != nil {
			a.Reset() // some entries before the failing one may have applied
			return a.Last(), err
		}
		e := batch[n-1]
		a.mu.Lock()
		a.last = topology.OpTime{TS: e.TS, Term: e.Term}
		a.mu.Unlock()
		batch = batch[n:]
	}
	return a.Last(), nil
}

// freshInserts reports whether the next batch may skip the insert probe:
// the option is on and the data is consistent (after a rollback, entries
// up to minValid may meet refetched documents from their future).
func (a *Applier) freshInserts() bool {
	if !a.opts.FreshInserts {
		return false
	}
	a.mu.Lock()
	consistent := a.consistent
	a.mu.Unlock()
	if consistent {
		return true
	}
	m, err := markers.Read(a.cat)
	if err != nil {
		return false
	}
	ts, term := a.cat.Oplog().Top()
	consistent = !(oplog.OpTime{TS: ts, Term: term}).Less(m.MinValid)
	a.mu.Lock()
	a.consistent = consistent
	a.mu.Unlock()
	return consistent
}

// noteSeq records the commit seq of the last entry applied.
func (a *Applier) noteSeq(seq uint64) {
	a.mu.Lock()
	a.appliedSeq = max(a.appliedSeq, seq)
	a.mu.Unlock()
}

// AppliedSeq returns the storage commit sequence of the last entry Apply
// wrote (pass it to Engine().WaitDurable).
func (a *Applier) AppliedSeq() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.appliedSeq
}

// ready waits until batch[0] may be applied and returns how many leading
// entries may be applied now.
func (a *Applier) ready(ctx context.Context, batch []*oplog.Entry) (int, error) {
	a.mu.Lock()
	delay := a.delay
	a.mu.Unlock()
	if delay <= 0 {
		return len(batch), nil
	}
	for {
		now := a.opts.Clock.Now()
		n := 0
		for n < len(batch) && !batch[n].Wall.Add(delay).After(now) {
			n++
		}
		if n > 0 {
			return n, nil
		}
		select {
		case <-a.opts.Clock.After(batch[0].Wall.Add(delay).Sub(now)):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// Durable waits until everything applied so far is synced to the WAL and
// returns the last applied OpTime (group commit: concurrent callers share
// one sync).
func (a *Applier) Durable(ctx context.Context) (topology.OpTime, error) {
	a.mu.Lock()
	last, seq := a.last, max(a.baseSeq, a.appliedSeq)
	a.mu.Unlock()
	if err := a.cat.Engine().WaitDurable(ctx, seq); err != nil {
		return topology.OpTime{}, fmt.Errorf("applier: wait durable: %w", err)
	}
	return last, nil
}
