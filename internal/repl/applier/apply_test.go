package applier

import (
	"errors"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/storage"
)

func TestApplyReproducesPrimary(t *testing.T) {
	p := openMem(t)
	primaryWorkload(t, p)
	entries := entriesOf(t, p)
	for _, chunk := range []int{len(entries), 1, 7} {
		s := openMem(t)
		for i := 0; i < len(entries); i += chunk {
			must(t, applyBatch(s, entries[i:min(i+chunk, len(entries))]))
		}
		mustSameState(t, p, s)
		mustSameOplog(t, p, s)
		last := entries[len(entries)-1]
		if ts, term := s.Oplog().Top(); ts != last.TS || term != last.Term {
			t.Fatalf("top %v@%d want %v@%d", ts, term, last.TS, last.Term)
		}
		m, err := markers.Read(s)
		must(t, err)
		if m.AppliedThrough != (oplog.OpTime{TS: last.TS, Term: last.Term}) || !m.MinValid.IsZero() {
			t.Fatalf("markers %+v", m)
		}
	}
}

func TestApplyIdempotent(t *testing.T) {
	p := openMem(t)
	primaryWorkload(t, p)
	entries := entriesOf(t, p)
	s := openMem(t)
	must(t, applyBatch(s, entries))
	must(t, applyBatch(s, entries)) // already in the oplog: skipped
	mustSameState(t, p, s)
	// Data ahead of the oplog (as after a truncation): every suffix
	// re-applied over the final state converges to the primary's state.
	for k := 0; k < len(entries); k++ {
		s := openMem(t)
		must(t, applyBatch(s, entries))
		var after bson.Timestamp
		if k > 0 {
			after = entries[k-1].TS
		}
		if _, err := markers.TruncateOplogAfter(s, after); err != nil {
			t.Fatal(err)
		}
		if err := applyBatch(s, entries[k:]); err != nil {
			t.Fatalf("re-apply from entry %d (%s %s %v): %v", k, entries[k].Op, entries[k].NS, entries[k].O, err)
		}
		mustSameState(t, p, s)
		mustSameOplog(t, p, s)
	}
}

func TestApplyRejectsDivergedAndUnordered(t *testing.T) {
	p := openMem(t)
	primaryWorkload(t, p)
	entries := entriesOf(t, p)
	s := openMem(t)
	must(t, applyBatch(s, entries))
	other := *entries[3]
	other.Term = 7
	if err := applyBatch(s, []*oplog.Entry{&other}); !errors.Is(err, ErrOplogMismatch) {
		t.Fatalf("different term at an applied ts: %v", err)
	}
	gap := openMem(t)
	must(t, applyBatch(gap, []*oplog.Entry{entries[0], entries[2]}))
	if err := applyBatch(gap, []*oplog.Entry{entries[1]}); !errors.Is(err, ErrOplogMismatch) {
		t.Fatalf("entry in a hole: %v", err)
	}
	s2 := openMem(t)
	if err := applyBatch(s2, []*oplog.Entry{entries[1], entries[0]}); err == nil {
		t.Fatal("unordered batch applied")
	}
}

// next returns an entry after c's top.
func next(c *catalog.Catalog, e oplog.Entry) *oplog.Entry {
	top, _ := c.Oplog().Top()
	e.TS = bson.Timestamp{T: top.T, I: top.I + 1}
	e.Term = 1
	return &e
}

func TestApplyMissingTargetsAndUniqueConflict(t *testing.T) {
	s := openMem(t)
	coll := mustColl(t, s, "app", "a")
	mustIndex(t, s, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, s, coll, d("_id", 1, "u", 1))
	ns, ui := coll.NS(), &coll.UUID
	gone := bson.Binary{Subtype: 4, Data: make([]byte, 16)}
	skipped := []oplog.Entry{
		{Op: "u", NS: ns, UI: ui, O: d("$set", d("u", 9)), O2: d("_id", 42)},
		{Op: "d", NS: ns, UI: ui, O: d("_id", 42)},
		{Op: "i", NS: ns, UI: &gone, O: d("_id", 7)},
		{Op: "c", NS: "app.$cmd", UI: &gone, O: d("drop", "a")},
		{Op: "c", NS: "app.$cmd", UI: ui, O: d("dropIndexes", "a", "index", "nope")},
		{Op: "c", NS: "app.$cmd", UI: ui, O: d("collMod", "a")},
		{Op: "c", NS: "app.$cmd", UI: ui, O: d("collMod", "a", "index", d("name", "nope", "hidden", true))},
		{Op: "n", NS: "", O: d("msg", "x")},
	}
	for _, e := range skipped {
		en := next(s, e)
		if err := applyBatch(s, []*oplog.Entry{en}); err != nil {
			t.Fatalf("%s %v: %v", e.Op, e.O, err)
		}
		if top, _ := s.Oplog().Top(); top != en.TS {
			t.Fatalf("%s %v: entry not written", e.Op, e.O)
		}
	}
	if docs := drain(t, live(s, coll).Scan(false)); len(docs) != 1 || len(live(s, coll).Indexes()) != 2 {
		t.Fatalf("skipped entries changed data: %v", docs)
	}
	var dup *catalog.DuplicateKeyError
	err := applyBatch(s, []*oplog.Entry{next(s, oplog.Entry{Op: "i", NS: ns, UI: ui, O: d("_id", 2, "u", 1)})})
	if !errors.As(err, &dup) {
		t.Fatalf("unique conflict: %v", err)
	}
	for _, o := range []bson.D{d("applyOps", "x"), d("applyOps", bson.A{d("op", "c")}), d("create", int32(1)), d("drop", "")} {
		err = applyBatch(s, []*oplog.Entry{next(s, oplog.Entry{Op: "c", NS: "app.$cmd", O: o})})
		if err == nil {
			t.Fatalf("bad command entry %v applied", o)
		}
	}
	if names := s.Databases(); len(names) != 1 || len(s.Collections("app")) != 1 {
		t.Fatalf("bad command entries changed the catalog: %v", names)
	}
}

func TestApplyContinuesTimestampsAsPrimary(t *testing.T) {
	p := openMem(t)
	primaryWorkload(t, p)
	entries := entriesOf(t, p)
	s := openMem(t)
	must(t, applyBatch(s, entries))
	s.Oplog().SetTerm(3)
	r, err := s.Insert(s.Collection("app", "a"), d("_id", 99))
	must(t, err)
	if last := entries[len(entries)-1]; !r.TS.After(last.TS) {
		t.Fatalf("new primary wrote %v, not after applied %v", r.TS, last.TS)
	}
	if _, term := s.Oplog().Top(); term != 3 {
		t.Fatalf("term %d", term)
	}
}

func TestTruncateAfterPointRecoveredAtOpen(t *testing.T) {
	p := openMem(t)
	primaryWorkload(t, p)
	entries := entriesOf(t, p)
	n := len(entries)
	fs := vfs.NewMem()
	open := func() *catalog.Catalog {
		c, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true, FS: fs}, TTLInterval: -1})
		must(t, err)
		must(t, markers.Recover(c, nil))
		return c
	}
	s := open()
	must(t, applyBatch(s, entries[:n-2]))
	must(t, markers.SetOplogTruncateAfter(s, entries[n-3].TS))
	must(t, applyBatch(s, entries[n-2:n-1])) // "crash" before clearing the point
	must(t, s.Close())

	s = open()
	defer s.Close()
	if top, _ := s.Oplog().Top(); top != entries[n-3].TS {
		t.Fatalf("top after recovery %v want %v", top, entries[n-3].TS)
	}
	m, err := markers.Read(s)
	must(t, err)
	want := markers.Markers{MinValid: entries[n-2].OpTime(), AppliedThrough: entries[n-3].OpTime()}
	if m != want {
		t.Fatalf("markers %+v want %+v", m, want)
	}
	if top, _ := s.Oplog().Top(); top.After(m.MinValid.TS) || top == m.MinValid.TS {
		t.Fatal("node would be consistent before reaching minValid")
	}
	must(t, applyBatch(s, entries[n-2:]))
	mustSameState(t, p, s)
	mustSameOplog(t, p, s)
}
