package crashtest

import (
	"strings"
	"testing"
)

// TestGeneratorValid applies thousands of generated ops to a model and
// checks each was valid against the model it was drawn from.
func TestGeneratorValid(t *testing.T) {
	g := NewGenerator(42)
	m := NewModel()
	seen := map[string]int{}
	for i := range 5000 {
		op := g.Next(m)
		if err := valid(op, m); err != "" {
			t.Fatalf("op %d %s: %s", i, op, err)
		}
		op.Apply(m)
		seen[op.Kind()]++
	}
	for _, k := range Kinds {
		if seen[k] == 0 {
			t.Errorf("kind %s never drawn in 5000 ops", k)
		}
	}
	if m.Docs() > maxDocs+3 {
		t.Errorf("model grew to %d docs, bound %d", m.Docs(), maxDocs)
	}
}

// valid reports why op cannot run against m ("" if it can).
func valid(op Op, m *Model) string {
	switch o := op.(type) {
	case *createOp:
		if m.Colls[o.NS] != nil {
			return "create of a present collection"
		}
	case *dropOp:
		if m.Colls[o.NS] == nil {
			return "drop of an absent collection"
		}
	case *renameOp:
		if m.Colls[o.From] == nil || (m.Colls[o.To] != nil) != o.DropTarget {
			return "rename source absent or target/dropTarget mismatch"
		}
	case *updateOp:
		if _, ok := m.Colls[o.NS].Docs[o.ID]; !ok {
			return "update of an absent document"
		}
	case *dropIndexOp:
		if m.Colls[o.NS] == nil || m.Colls[o.NS].Indexes[o.Name] == "" {
			return "drop of an absent index"
		}
	case *outOp:
		if c := m.Colls[o.To]; c != nil && len(c.Indexes) > 1 {
			return "$out into a collection with secondary indexes"
		}
	}
	return ""
}

func modelWith(ops ...Op) *Model {
	m := NewModel()
	for _, op := range ops {
		op.Apply(m)
	}
	return m
}

func TestResolveInFlight(t *testing.T) {
	ins := &insertOp{NS: "crash_a.c0", Docs: []Doc{{ID: 1, B: "x"}, {ID: 2, B: "y"}}}
	acked := modelWith(ins)
	drop := &dropOp{NS: "crash_a.c0"}
	if m, diff := Resolve(acked, drop, NewModel().State()); m == nil {
		t.Fatalf("in-flight drop applied: rejected: %v", diff)
	}
	if m, diff := Resolve(acked, drop, acked.State()); m == nil {
		t.Fatalf("in-flight drop not applied: rejected: %v", diff)
	}
	if m, _ := Resolve(acked, nil, NewModel().State()); m != nil {
		t.Fatalf("acknowledged insert lost: accepted")
	}
}

func TestResolvePartial(t *testing.T) {
	src := []Doc{{ID: 1, B: "x"}, {ID: 2, B: "y"}, {ID: 3, B: "z"}}
	acked := modelWith(&insertOp{NS: "crash_a.c0", Docs: src}, &insertOp{NS: "crash_a.c1", Docs: []Doc{{ID: 9}}})
	merge := &mergeOp{From: "crash_a.c0", To: "crash_a.c1", Src: src}
	half := modelWith(&insertOp{NS: "crash_a.c0", Docs: src}, &insertOp{NS: "crash_a.c1", Docs: []Doc{{ID: 9}, src[1]}})
	if m, diff := Resolve(acked, merge, half.State()); m == nil {
		t.Fatalf("half-applied $merge rejected: %v", diff)
	}
	wrong := modelWith(&insertOp{NS: "crash_a.c0", Docs: src}, &insertOp{NS: "crash_a.c1", Docs: []Doc{src[1]}})
	if m, _ := Resolve(acked, merge, wrong.State()); m != nil {
		t.Fatalf("$merge that lost a target document accepted")
	}
	rename := &renameOp{From: "crash_a.c0", To: "crash_a.c2"}
	if m, _ := Resolve(acked, rename, modelWith(&insertOp{NS: "crash_a.c1", Docs: []Doc{{ID: 9}}}).State()); m != nil {
		t.Fatalf("rename that lost both collections accepted")
	}
}

// TestResolvePartialCreateIndexes: an in-flight createIndexes on a missing
// collection may leave the collection created without the index (seen by
// the crash harness, seed 1795640860698389783), but not an index on a
// collection that was there without the collection's documents.
func TestResolvePartialCreateIndexes(t *testing.T) {
	acked := NewModel()
	ci := &createIndexOp{NS: "crash_a.c3", Name: "b_-1", Key: indexSpecs["b_-1"]}
	if m, diff := Resolve(acked, ci, modelWith(&createOp{NS: "crash_a.c3"}).State()); m == nil {
		t.Fatalf("collection created without the index rejected: %v", diff)
	}
	existing := modelWith(&insertOp{NS: "crash_a.c3", Docs: []Doc{{ID: 1}}})
	if m, _ := Resolve(existing, ci, modelWith(&createOp{NS: "crash_a.c3"}).State()); m != nil {
		t.Fatalf("an existing collection's documents lost: accepted")
	}
}

func TestStreamExplain(t *testing.T) {
	s := NewStream(NewGenerator(1), WJournal)
	for _, op := range []Op{&createOp{NS: "crash_a.c0"}, &createIndexOp{NS: "crash_a.c0", Name: "a_1", Key: indexSpecs["a_1"]},
		&dropOp{NS: "crash_a.c0"}} {
		s.keepUndo(op)
		op.Apply(s.model)
	}
	before := modelWith(&createOp{NS: "crash_a.c0"}).State()
	err := s.Check(before)
	if err == nil || !strings.Contains(err.Error(), "last 2 acknowledged op(s)") {
		t.Fatalf("Check = %v, want the last 2 ops named", err)
	}
	if s.Lost != 1 || !Equal(s.Model().State(), before) {
		t.Fatalf("after a failed check: Lost %d, model %v", s.Lost, s.Model().State())
	}
}
