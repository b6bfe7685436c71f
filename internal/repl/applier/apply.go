package applier

// Applying replicated oplog entries on a secondary, through the catalog's
// write primitive (catalog.Apply).
//
// Invariants:
//   - An applied entry is written to the local oplog with the ts and term
//     its primary gave it, in the SAME storage batch as its effect and the
//     appliedThrough marker. Entries are applied strictly in ts order,
//     under the catalog's write lock: a command entry in a batch of its
//     own, a run of consecutive CRUD entries in one batch (apply_run.go).
//     So after a crash the oplog, the data and appliedThrough all describe
//     the same prefix of the primary's history: no truncate-after point or
//     minValid write is needed around a batch.
//   - Application is idempotent, as MongoDB's oplog application: an insert
//     is an upsert (except in steady state, BatchOptions.FreshInserts,
//     where its _id is known to be absent and is not probed); an update or delete of a missing document, and any
//     CRUD entry on a missing collection (found by UUID), only write the
//     entry; DDL whose effect is already present only writes the entry.
//   - Entries at or before the oplog top are skipped when the local oplog
//     holds the same entry (ts and term); a different entry is an error
//     (ErrOplogMismatch: the caller must roll back).
//   - Unique-index conflicts are errors (DuplicateKey), as in MongoDB's
//     steady-state replication: our unique indexes cannot hold the
//     transient duplicates MongoDB's relaxed secondaries allow. Initial
//     sync's batches are relaxed (BatchOptions.Relaxed, which each entry's
//     batch takes: catalog.Writer.RelaxUnique), and then also skip
//     updates that do not apply to a (newer) cloned document.

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/storage"
)

// ErrOplogMismatch is returned by ApplyBatch for an entry at or before the
// local oplog's top that the local oplog does not hold (a different term
// at that ts, or a hole): the histories diverged.
var ErrOplogMismatch = errors.New("applier: replicated entry conflicts with the local oplog")

// ApplyBatch applies replicated entries to cat in order, each with its
// effect in one storage batch (see the invariants above). It stops at the
// first error; entries before it stay applied. It returns the storage
// commit sequence of the last entry it wrote (0 if none; pass it to
// Engine().WaitDurable), also on an error. It may set an insert entry's
// ORaw (the encoded document) to avoid encoding it twice. log (nil:
// slog.Default()) hears, at debug level, about entries without effect.
func ApplyBatch(cat *catalog.Catalog, entries []*oplog.Entry, log *slog.Logger) (uint64, error) {
	return ApplyBatchWith(cat, entries, log, BatchOptions{})
}

// BatchOptions modify ApplyBatchWith.
type BatchOptions struct {
	// Relaxed, if not nil, relaxes the batch of each entry: a unique
	// conflict is tolerated and its index added to Relaxed
	// (catalog.Writer.RelaxUnique; the caller rebuilds them with
	// catalog.RebuildIndexes once the data is consistent), and an update
	// that does not apply to the stored (possibly newer) document is
	// skipped. Initial sync's application, until its data is consistent.
	Relaxed catalog.IndexSet
	// Writers is how many writers apply a large run (apply_parallel.go;
	// 1: one goroutine, as before); 0: DefaultWriters().
	Writers int
	// FreshInserts skips the probe for an existing document with an
	// insert's _id (catalog.Writer.InsertFresh). Only steady-state
	// application may set it (Applier, Options.FreshInserts): entries
	// strictly after the local oplog top, from a sync source, in order, on
	// data that is consistent (minValid reached). The primary accepted
	// each insert, so an earlier document with its _id was deleted by an
	// earlier entry this member applied. Initial sync's replay (cloned
	// documents may hold later state) and the entries after a rollback
	// (refetched documents, minValid ahead) must probe. Entries at or
	// before the top are checked, not applied, either way.
	FreshInserts bool
	// serial applies every entry in a batch of its own (tests compare the
	// two ways).
	serial bool
}

// writers returns o.Writers or its default.
func (o BatchOptions) writers() int {
	if o.Writers > 0 {
		return o.Writers
	}
	return DefaultWriters()
}

// ApplyBatchWith is ApplyBatch with options. Consecutive CRUD entries
// share one storage batch (a run, apply_run.go); each command entry has
// a batch of its own.
func ApplyBatchWith(cat *catalog.Catalog, entries []*oplog.Entry, log *slog.Logger, o BatchOptions) (uint64, error) {
	if log == nil {
		log = slog.Default()
	}
	var orderErr error
	for i := 1; i < len(entries); i++ {
		if !entries[i].TS.After(entries[i-1].TS) {
			orderErr = fmt.Errorf("applier: entry %v not after %v", entries[i].TS, entries[i-1].TS)
			entries = entries[:i] // the entries before it are applied
			break
		}
	}
	var last uint64
	for len(entries) > 0 {
		n := runLen(entries, o)
		var seq uint64
		var err error
		if n <= 1 {
			n = 1
			seq, err = applySerial(cat, entries[:1], log, o)
		} else {
			seq, err = applyRun(cat, entries[:n], log, o)
		}
		last = max(last, seq)
		if err != nil {
			return last, err
		}
		entries = entries[n:]
	}
	return last, orderErr
}

// entryApply is one entry being applied in one batch.
type entryApply struct {
	cat *catalog.Catalog
	w   *catalog.Writer
	e   *oplog.Entry
	log *slog.Logger
	// relaxed: the batch is relaxed (BatchOptions.Relaxed).
	relaxed bool
	// fresh: inserts skip the existing-document probe (BatchOptions.FreshInserts).
	fresh bool
}

// applyEntry applies one entry: its effect, the entry and appliedThrough
// in one batch, or nothing when the local oplog already holds it.
func applyEntry(cat *catalog.Catalog, e *oplog.Entry, log *slog.Logger, o BatchOptions) (uint64, error) {
	r, err := cat.Apply(func(w *catalog.Writer) error {
		if top, _ := cat.Oplog().Top(); !e.TS.After(top) {
			return checkPresent(cat, e)
		}
		a := &entryApply{cat: cat, w: w, e: e, log: log, relaxed: o.Relaxed != nil, fresh: o.FreshInserts}
		if a.relaxed {
			w.RelaxUnique(o.Relaxed)
		}
		if err := a.effect(); err != nil {
			return err
		}
		if err := w.AppendOplog(e); err != nil {
			return err
		}
		return markers.PutAppliedThrough(w, e.OpTime())
	})
	return r.Seq, err
}

// effect adds the entry's effect to the batch.
func (a *entryApply) effect() error {
	switch a.e.Op {
	case oplog.OpInsert:
		return a.insert()
	case oplog.OpUpdate:
		return a.update()
	case oplog.OpDelete:
		return a.delete()
	case oplog.OpCommand:
		return a.command()
	case oplog.OpNoop:
		return nil
	}
	return fmt.Errorf("unknown op %q", a.e.Op)
}

// checkPresent accepts an entry the local oplog already holds.
func checkPresent(cat *catalog.Catalog, e *oplog.Entry) error {
	if e.TS.Before(cat.Oplog().First()) {
		return nil // applied long ago and truncated by size
	}
	raw, ok, err := cat.Engine().Get(storage.OplogKey(e.TS))
	if err != nil {
		return fmt.Errorf("read the local entry at %v: %w", e.TS, err)
	}
	if !ok {
		return fmt.Errorf("%w: no local entry at %v", ErrOplogMismatch, e.TS)
	}
	have, err := oplog.Unmarshal(raw)
	if err != nil {
		return fmt.Errorf("decode the local entry at %v: %w", e.TS, err)
	}
	if have.Term != e.Term {
		return fmt.Errorf("%w: local entry at %v has term %d", ErrOplogMismatch, e.TS, have.Term)
	}
	return nil
}

// resolve returns the collection ns names for the entry: by UUID when the
// entry has one (a rename or drop-and-recreate keeps entries on their
// collection), else by namespace. nil if it does not exist.
func (a *entryApply) resolve(ns string) *catalog.Collection {
	db, name, _ := strings.Cut(ns, ".")
	coll := a.cat.Collection(db, name)
	ui := a.e.UI
	if ui == nil || (coll != nil && bytes.Equal(coll.UUID.Data, ui.Data)) {
		return coll
	}
	return a.cat.CollectionByUUID(*ui)
}

// skip leaves the batch with the entry only: its effect is absent or
// already present.
func (a *entryApply) skip(why string) error {
	a.log.Debug("oplog application: entry has no effect", "op", a.e.Op, "ns", a.e.NS, "ts", a.e.TS, "why", why)
	return nil
}
