package rollback

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// pair is a former primary (a, on disk) and the set's new primary (b, in
// memory) that share a history up to common.
type pair struct {
	a, b       *catalog.Catalog
	aDir       string
	aClk, bClk *clock
	common     topology.OpTime
	aClosed    bool
}

func (p *pair) closeA(t *testing.T) {
	t.Helper()
	p.aClosed = true
	if err := p.a.Close(); err != nil {
		t.Fatal(err)
	}
}

// newPair writes the shared history on a (term 1) and replicates it to b.
func newPair(t *testing.T) *pair {
	p := &pair{aDir: t.TempDir(), aClk: &clock{t0}, bClk: &clock{t0}}
	p.a, p.b = openCat(t, p.aDir, p.aClk), openCat(t, "", p.bClk)
	t.Cleanup(func() {
		if !p.aClosed {
			_ = p.a.Close()
		}
	})
	p.a.Oplog().SetTerm(1)
	a := w{t, p.a}
	a.insert("db.c", d("_id", 1, "a", 1), d("_id", 2, "a", 2), d("_id", 3, "a", 3),
		d("_id", 4, "a", 4), d("_id", "five", "a", 5))
	a.index("db.c", "a_1", d("a", int32(1)))
	a.set("db.c", 2, "a", 22)
	a.insert("db.other", d("_id", 1))
	replicate(t, p.a, p.b, bson.Timestamp{})
	ts, term := top(p.a)
	p.common = topology.OpTime{TS: ts, Term: term}
	p.b.Oplog().SetTerm(2)
	return p
}

// diverge writes the old primary's unreplicated tail and the new
// primary's history.
func (p *pair) diverge(t *testing.T) {
	a, b := w{t, p.a}, w{t, p.b}
	a.insert("db.c", d("_id", 6, "a", 6))
	a.set("db.c", 1, "a", 100)
	a.del("db.c", 3)
	a.set("db.c", 4, "a", 44)
	a.insert("db.newA", d("_id", "x"), d("_id", "y"))
	a.index("db.c", "b_1", d("b", int32(1)))
	a.insert("db.other", d("_id", 2))
	a.set("db.c", "five", "b", 1)

	if _, err := p.b.WriteNoop(d("msg", "new primary")); err != nil {
		t.Fatal(err)
	}
	b.set("db.c", 1, "a", 200)
	b.insert("db.c", d("_id", 7, "a", 7))
	b.del("db.c", 4)
	b.insert("db.newB", d("_id", 1))
	b.index("db.c", "a_-1", d("a", int32(-1)))
}

func TestRollbackMatchesSource(t *testing.T) {
	tests := []struct {
		name     string
		bAhead   time.Duration // the new primary's clock against the old one's
		maxBatch int
	}{
		{"same clock: same ts, other term", 0, 0},
		{"source clock ahead", 10 * time.Second, 0},
		{"source clock behind, small batches", -10 * time.Second, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPair(t)
			p.bClk.t = t0.Add(tt.bAhead)
			p.diverge(t)
			src := &fakeSource{cat: p.b, maxBatch: tt.maxBatch}
			res, err := Run(context.Background(), Options{Catalog: p.a, Source: src, DBPath: p.aDir, Logger: quiet})
			if err != nil {
				t.Fatal(err)
			}
			if res.CommonPoint != p.common {
				t.Errorf("common point %v, want %v", res.CommonPoint, p.common)
			}
			if res.Undone != 10 { // a's entries in diverge: 7 writes, create + 2 inserts
				t.Errorf("undone %d entries, want 10", res.Undone)
			}
			if ts, term := top(p.a); ts != p.common.TS || term != p.common.Term {
				t.Errorf("oplog top %v@%d after rollback, want %v", ts, term, p.common)
			}
			checkMinValid(t, p.a, p.b)
			checkFiles(t, p, res.Files)
			replicate(t, p.b, p.a, res.CommonPoint.TS)
			sameData(t, p.a, p.b)
			if at, aterm := top(p.a); true {
				if bt, bterm := top(p.b); at != bt || aterm != bterm {
					t.Errorf("tops differ: %v@%d vs %v@%d", at, aterm, bt, bterm)
				}
			}
			verifyDir(t, p)
		})
	}
}

// checkMinValid: minValid is at least the source's top.
func checkMinValid(t *testing.T, a, b *catalog.Catalog) {
	t.Helper()
	m, err := markers.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	ts, term := top(b)
	if m.MinValid.Less(topology.OpTime{TS: ts, Term: term}) {
		t.Errorf("minValid %v is older than the source's top %v@%d", m.MinValid, ts, term)
	}
}

// checkFiles reads the rollback files back: they hold our versions of
// the documents the rollback replaced or removed, and nothing else.
func checkFiles(t *testing.T, p *pair, files []string) {
	t.Helper()
	want := map[string][]string{
		"db.c":     {"{_id 6} {a 6}", "{_id 1} {a 100}", "{_id 4} {a 44}", "{_id five} {a 5} {b 1}"},
		"db.newA":  {"{_id x}", "{_id y}"},
		"db.other": {"{_id 2}"},
	}
	got := map[string][]string{}
	for _, f := range files {
		ns := nsOfDir(t, p, filepath.Dir(f))
		if !strings.HasPrefix(filepath.Base(f), "removed.") || filepath.Ext(f) != ".bson" {
			t.Errorf("file name %s", f)
		}
		docs, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range docs {
			got[ns] = append(got[ns], docString(doc))
		}
	}
	for ns, docs := range want {
		if strings.Join(got[ns], " | ") != strings.Join(docs, " | ") {
			t.Errorf("%s rollback file holds %v, want %v", ns, got[ns], docs)
		}
	}
	if len(got) != len(want) {
		t.Errorf("rollback files for %d namespaces, want %d: %v", len(got), len(want), got)
	}
}

// nsOfDir maps a rollback directory (named by collection UUID) to a
// namespace of the old primary's history.
func nsOfDir(t *testing.T, p *pair, dir string) string {
	t.Helper()
	for _, coll := range p.a.Collections("db") {
		if FileDir(p.aDir, coll.UUID) == dir {
			return coll.NS()
		}
	}
	return "db.newA" // dropped: the only collection rollback removes here
}

func docString(doc bson.D) string {
	var parts []string
	for _, e := range doc {
		parts = append(parts, "{"+e.Key+" "+toString(e.Value)+"}")
	}
	return strings.Join(parts, " ")
}

func toString(v any) string {
	if n, ok := bsonx.AsInt64(v); ok {
		return fmt.Sprint(n)
	}
	return fmt.Sprint(v)
}

// verifyDir closes a and checks its data directory's consistency.
func verifyDir(t *testing.T, p *pair) {
	t.Helper()
	p.closeA(t)
	r, err := catalog.Verify(p.aDir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Errorf("verify after rollback: %v", r.Problems)
	}
}
