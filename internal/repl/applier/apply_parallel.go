package applier

// Applying a run's effects with several writers (replWriterThreadCount).
//
// Invariants:
//   - A run of at least parallelMin entries, with Writers > 1 and not
//     relaxed, has its effects prepared by up to Writers goroutines, each
//     with a sub-writer of the run's Writer (catalog.Writer.Fork) and so a
//     storage batch of its own. The entries are partitioned by document:
//     (collection, keystring of _id) when the collection's writes touch
//     only the document's own keys (catalog.Collection.PerDocumentWrites),
//     else by collection (unique or prepareUnique secondary indexes,
//     capped, clustered, time-series: one writer takes all of that
//     collection's entries). Each writer applies its entries in ts order,
//     so every document (and every such collection) sees its entries in
//     the order one batch would; no two writers write one key.
//   - The sub-batches are merged into the run's batch (Writer.Join, which
//     adds the counter deltas and multikey flags), then the run's oplog
//     entries and appliedThrough are added and the run commits as ONE
//     storage batch, as a single-writer run does: the crash invariant (a
//     crash leaves a consistent prefix, no truncate-after point, no
//     minValid write) is unchanged.
//   - If any writer fails, nothing of the run is kept and applyRun applies
//     the run again entry by entry (the error reported is that path's).
//   - Entries whose effect is none (no-ops, missing collections) go to
//     writer 0, which only logs them.

import (
	"errors"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

// parallelRuns counts the runs applied with several writers (tests).
var parallelRuns atomic.Int64

// parallelRun reports whether run's effects are prepared by several
// writers (see above).
func parallelRun(run []*oplog.Entry, o BatchOptions) bool {
	return len(run) >= parallelMin && o.writers() > 1 && o.Relaxed == nil && !o.serial
}

// effectsParallel adds the effects of run to w with o.writers() writers.
func effectsParallel(cat *catalog.Catalog, w *catalog.Writer, run []*oplog.Entry, log *slog.Logger, o BatchOptions) error {
	parallelRuns.Add(1)
	parts := slices.DeleteFunc(partition(cat, run, o.writers()), func(p []*oplog.Entry) bool { return len(p) == 0 })
	subs, err := w.Fork(len(parts))
	if err != nil {
		return err
	}
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, part := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, e := range part {
				a := &entryApply{cat: cat, w: subs[i], e: e, log: log, fresh: o.FreshInserts}
				if err := a.effect(); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		catalog.Discard(subs)
		return err
	}
	return w.Join(subs)
}

// partition splits run into n parts keeping ts order in each: by
// document, or by collection where PerDocumentWrites is false.
func partition(cat *catalog.Catalog, run []*oplog.Entry, n int) [][]*oplog.Entry {
	parts := make([][]*oplog.Entry, n)
	perDoc := map[uint32]bool{}
	for _, e := range run {
		i := writerOf(cat, e, perDoc) % uint32(n)
		parts[i] = append(parts[i], e)
	}
	return parts
}

// writerOf returns the partition hash of e (0: no effect).
func writerOf(cat *catalog.Catalog, e *oplog.Entry, perDoc map[uint32]bool) uint32 {
	if e.Op == oplog.OpNoop {
		return 0
	}
	coll := (&entryApply{cat: cat, e: e}).resolve(e.NS)
	if coll == nil {
		return 0
	}
	pd, ok := perDoc[coll.ID]
	if !ok {
		pd = coll.PerDocumentWrites()
		perDoc[coll.ID] = pd
	}
	h := fnv.New32a()
	h.Write([]byte{byte(coll.ID), byte(coll.ID >> 8), byte(coll.ID >> 16), byte(coll.ID >> 24)})
	if id, ok := entryID(e); pd && ok {
		h.Write(keystring.AppendValue(nil, id, false)) // storage.DocKey's _id form
	}
	return h.Sum32()
}

// entryID returns the _id of the document a CRUD entry changes.
func entryID(e *oplog.Entry) (any, bool) {
	if e.Op == oplog.OpUpdate {
		return bsonx.Get(e.O2, "_id")
	}
	return bsonx.Get(e.O, "_id")
}
