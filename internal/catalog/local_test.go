package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestLocalWritesNotInOplog(t *testing.T) {
	c := openMem(t)
	tests := []struct {
		db        string
		wantEntry bool
	}{
		{db: "local", wantEntry: false},
		{db: "app", wantEntry: true},
	}
	for _, tt := range tests {
		before := c.Oplog().Visible()
		coll := mustColl(t, c, tt.db, "things")
		r, err := c.Insert(coll, d("_id", 1, "x", 1))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Update(coll, d("_id", 1, "x", 1), d("_id", 1, "x", 2), d("$v", 2)); err != nil {
			t.Fatal(err)
		}
		after := c.Oplog().Visible()
		if got := after.After(before); got != tt.wantEntry {
			t.Fatalf("%s: oplog advanced = %v, want %v", tt.db, got, tt.wantEntry)
		}
		if got := !r.TS.IsZero(); got != tt.wantEntry {
			t.Fatalf("%s: insert ts %v", tt.db, r.TS)
		}
		if n := coll.Count(); n != 1 {
			t.Fatalf("%s: count %d", tt.db, n)
		}
	}
}

func TestWriteNoop(t *testing.T) {
	c := openMem(t)
	c.Oplog().SetTerm(3)
	r, err := c.WriteNoop(bson.D{{Key: "msg", Value: "new primary"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Oplog().Visible() != r.TS {
		t.Fatalf("visible %v, noop at %v", c.Oplog().Visible(), r.TS)
	}
	es, err := c.Oplog().Read(r.TS, true, 1)
	if err != nil || len(es) != 1 {
		t.Fatalf("read: %v %d", err, len(es))
	}
	if e := es[0]; e.Op != "n" || e.Term != 3 || e.O[0].Value != "new primary" {
		t.Fatalf("entry %+v", e)
	}
}

func TestEnsureLocalCollection(t *testing.T) {
	c := openMem(t)
	if _, _, err := c.EnsureCollection("local", "system.replset"); err == nil {
		t.Fatal("users may not create local.system.replset")
	}
	a, err := c.EnsureLocalCollection("system.replset")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.EnsureLocalCollection("system.replset")
	if err != nil || a.ID != b.ID {
		t.Fatalf("second ensure: %v %v", err, b)
	}
}
