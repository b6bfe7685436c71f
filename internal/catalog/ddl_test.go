package catalog

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

func TestCollectionNames(t *testing.T) {
	tests := []struct {
		db, name string
		ok       bool
	}{
		{"db", "c", true},
		{"db", "a.b", true},
		{"db", "system.js", true},
		{"db", "", false},
		{"db", "a$b", false},
		{"db", ".a", false},
		{"db", "system.foo", false},
		{"db", strings.Repeat("x", 260), false},
		{"", "c", false},
		{"a.b", "c", false},
		{"a b", "c", false},
	}
	for _, tc := range tests {
		err := ValidateCollName(tc.db, tc.name)
		if (err == nil) != tc.ok || (err != nil && !mongoerr.Is(err, mongoerr.InvalidNamespace)) {
			t.Errorf("%q.%q: %v", tc.db, tc.name, err)
		}
	}
}

func TestCreateListDrop(t *testing.T) {
	c := openMem(t)
	mustColl(t, c, "b", "y")
	mustColl(t, c, "b", "x")
	mustColl(t, c, "a", "z")
	if _, err := c.CreateCollection("b", "x", nil); !mongoerr.Is(err, mongoerr.NamespaceExists) {
		t.Fatalf("duplicate create: %v", err)
	}
	if _, err := c.CreateCollection("b", "$x", nil); !mongoerr.Is(err, mongoerr.InvalidNamespace) {
		t.Fatalf("bad name: %v", err)
	}
	if got := c.Databases(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("databases %v", got)
	}
	var names []string
	for _, coll := range c.Collections("b") {
		names = append(names, coll.Name)
	}
	if !reflect.DeepEqual(names, []string{"x", "y"}) {
		t.Fatalf("collections %v", names)
	}
	idxs := c.Collection("b", "x").Indexes()
	if len(idxs) != 1 || idxs[0].Name != "_id_" || !reflect.DeepEqual(idxs[0].Spec, idIndexSpec()) {
		t.Fatalf("_id_ index %v", idxs)
	}
	if err := c.DropCollection("b", "nope"); !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		t.Fatalf("drop missing: %v", err)
	}
	coll := c.Collection("b", "x")
	mustIndex(t, c, coll, spec("a_1", d("a", 1)))
	mustInsert(t, c, coll, d("_id", 1, "a", 1))
	if err := c.DropCollection("b", "x"); err != nil {
		t.Fatal(err)
	}
	if c.Collection("b", "x") != nil {
		t.Fatal("dropped collection still listed")
	}
	if r := mustVerify(t, c); r.Documents != 0 || r.IndexEntries != 0 {
		t.Fatalf("drop left data: %+v", r)
	}
	again := mustColl(t, c, "b", "x")
	if again.ID == coll.ID || again.Count() != 0 {
		t.Fatal("recreated collection reuses id or data")
	}
}

func TestEnsureCollection(t *testing.T) {
	c := openMem(t)
	coll, created, err := c.EnsureCollection("db", "c")
	if err != nil || !created || coll == nil {
		t.Fatalf("%v %v", created, err)
	}
	coll2, created, err := c.EnsureCollection("db", "c")
	if err != nil || created || coll2 != coll {
		t.Fatalf("second ensure: %v %v", created, err)
	}
	if _, _, err := c.EnsureCollection("db", "a$"); !mongoerr.Is(err, mongoerr.InvalidNamespace) {
		t.Fatalf("bad name: %v", err)
	}
}

func TestDropDatabase(t *testing.T) {
	c := openMem(t)
	mustInsert(t, c, mustColl(t, c, "d1", "a"), d("_id", 1))
	mustColl(t, c, "d1", "b")
	keep := mustColl(t, c, "d2", "a")
	mustInsert(t, c, keep, d("_id", 1))
	if err := c.DropDatabase("d1"); err != nil {
		t.Fatal(err)
	}
	if err := c.DropDatabase("missing"); err != nil {
		t.Fatal(err)
	}
	if got := c.Databases(); !reflect.DeepEqual(got, []string{"d2"}) {
		t.Fatalf("databases %v", got)
	}
	es, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	last := es[len(es)-1]
	if last.NS != "d1.$cmd" || last.O[0].Key != "dropDatabase" || es[len(es)-2].O[0].Key != "drop" {
		t.Fatalf("oplog tail %+v", last)
	}
	if r := mustVerify(t, c); r.Documents != 1 {
		t.Fatalf("documents %d", r.Documents)
	}
}

func TestRenameCollection(t *testing.T) {
	c := openMem(t)
	src := mustColl(t, c, "db", "a")
	mustIndex(t, c, src, spec("x_1", d("x", 1)))
	mustInsert(t, c, src, d("_id", 1, "x", 1), d("_id", 2, "x", 2))
	tgt := mustColl(t, c, "db", "b")
	mustInsert(t, c, tgt, d("_id", 9))
	if err := c.RenameCollection("db", "a", "db", "b", false); !mongoerr.Is(err, mongoerr.NamespaceExists) {
		t.Fatalf("rename onto existing: %v", err)
	}
	if err := c.RenameCollection("db", "zz", "db", "q", false); !mongoerr.Is(err, mongoerr.NamespaceNotFound) {
		t.Fatalf("rename missing: %v", err)
	}
	if err := c.RenameCollection("db", "a", "db", "a", false); !mongoerr.Is(err, mongoerr.IllegalOperation) {
		t.Fatalf("rename to itself: %v", err)
	}
	if err := c.RenameCollection("db", "a", "db", "b", true); err != nil {
		t.Fatal(err)
	}
	b := c.Collection("db", "b")
	if c.Collection("db", "a") != nil || b == nil || b.ID != src.ID || b.UUID.Subtype != 4 || b.Count() != 2 {
		t.Fatalf("after rename: %+v", b)
	}
	if got := ids(drain(t, b.ScanIndex(b.Index("x_1"), nil, nil, false))); len(got) != 2 {
		t.Fatalf("index after rename %v", got)
	}
	// Cross-database rename; writes through the old handle go to the live one.
	if err := c.RenameCollection("db", "b", "other", "c", false); err != nil {
		t.Fatal(err)
	}
	mustInsert(t, c, src, d("_id", 3, "x", 3))
	moved := c.Collection("other", "c")
	if moved.Count() != 3 {
		t.Fatalf("count after cross-db rename+insert %d", moved.Count())
	}
	es, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	last := es[len(es)-1]
	if last.NS != "other.c" || last.Op != "i" {
		t.Fatalf("insert after rename logged as %s %s", last.Op, last.NS)
	}
	mustVerify(t, c)
}

func TestReopenPersistence(t *testing.T) {
	dir := t.TempDir()
	open := func() *Catalog {
		c, err := Open(Options{Storage: storage.Options{Dir: dir}, TTLInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open()
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("t_1", d("t", 1), "unique", true))
	mustInsert(t, c, coll, d("_id", 1, "t", bson.A{1, 2}), d("_id", 2, "t", 3))
	lastTS, _ := c.Oplog().Last()
	uuid := coll.UUID
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = open()
	defer c.Close()
	coll = c.Collection("db", "c")
	if coll == nil || coll.Count() != 2 || coll.DataSize() == 0 || !reflect.DeepEqual(coll.UUID, uuid) {
		t.Fatalf("reopened collection %+v", coll)
	}
	idx := coll.Index("t_1")
	if idx == nil || !idx.Unique || !idx.Multikey {
		t.Fatalf("reopened index %+v", idx)
	}
	if _, err := c.Insert(coll, d("_id", 3, "t", 2)); !mongoerr.Is(err, mongoerr.DuplicateKey) {
		t.Fatalf("unique after reopen: %v", err)
	}
	r, err := c.Insert(coll, d("_id", 4))
	if err != nil || !r.TS.After(lastTS) {
		t.Fatalf("ts after reopen %v <= %v (%v)", r.TS, lastTS, err)
	}
	again := mustColl(t, c, "db", "d")
	if again.ID <= coll.Index("t_1").ID {
		t.Fatal("id allocator reset after reopen")
	}
	mustVerify(t, c)
}

func TestVerifyDetectsCorruptIndex(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(Options{Storage: storage.Options{Dir: dir}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", 1)))
	mustInsert(t, c, coll, d("_id", 1, "a", "x"), d("_id", 2, "a", "y"))
	// Delete one index entry behind the catalog's back.
	idx := live(c, coll).Index("a_1")
	k, _ := entryKV(idx, ks("x"), ks(int32(1)))
	b := c.eng.NewBatch()
	_ = b.Delete(k)
	if _, err := c.eng.Commit(b, true); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	r, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.OK() || r.Documents != 2 || r.IndexEntries != 1 || !strings.Contains(strings.Join(r.Problems, ";"), "missing") {
		t.Fatalf("verify did not flag the missing entry: %+v", r)
	}
	if r.OplogEntries != 4 {
		t.Fatalf("oplog entries %d", r.OplogEntries)
	}
}

func TestVerifyCleanDirAndExtraEntry(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("a_1", d("a", 1)))
	mustInsert(t, c, coll, d("_id", 1, "a", "x"))
	mustVerify(t, c)
	idx := live(c, coll).Index("a_1")
	k, v := entryKV(idx, ks("ghost"), ks(int32(7)))
	b := c.eng.NewBatch()
	_ = b.Set(k, v)
	if _, err := c.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	r, err := c.verify()
	if err != nil || r.OK() {
		t.Fatalf("extra entry not flagged: %+v %v", r, err)
	}
}

func TestTTLReaper(t *testing.T) {
	now := time.Unix(10_000, 0)
	c, err := Open(Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1,
		Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("at_1", d("at", 1), "expireAfterSeconds", int32(60)))
	old := bson.NewDateTimeFromTime(now.Add(-2 * time.Minute))
	fresh := bson.NewDateTimeFromTime(now.Add(-30 * time.Second))
	mustInsert(t, c, coll, d("_id", 1, "at", old), d("_id", 2, "at", fresh),
		d("_id", 3, "at", bson.A{fresh, old}), d("_id", 4, "at", "not a date"), d("_id", 5))
	n, err := c.ReapTTL()
	if err != nil || n != 2 {
		t.Fatalf("reaped %d %v", n, err)
	}
	if got := fmt.Sprint(ids(drain(t, coll.Scan(false)))); got != "[2 4 5]" {
		t.Fatalf("left %v", got)
	}
	es, _ := c.Oplog().Read(bson.Timestamp{}, false, 0)
	if es[len(es)-1].Op != "d" {
		t.Fatal("TTL delete not in oplog")
	}
	mustVerify(t, c)
}

func TestWaitDurableGroupCommit(t *testing.T) {
	c, err := Open(Options{Storage: storage.Options{InMemory: true, CommitInterval: time.Hour}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	coll := mustColl(t, c, "db", "c")
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r, err := c.Insert(coll, d("_id", i))
			if err == nil {
				err = c.WaitDurable(context.Background(), r)
			}
			if err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	m := c.Engine().Metrics()
	if m.Durable < m.Committed || m.Syncs == 0 || m.Syncs > 32 {
		t.Fatalf("metrics %+v", m)
	}
}
