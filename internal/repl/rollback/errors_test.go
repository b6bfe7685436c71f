package rollback

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestRollbackRefuses: a divergent entry that cannot be undone without
// the data fails the rollback before any change.
func TestRollbackRefuses(t *testing.T) {
	tests := []struct {
		name string
		tail func(a w)
		want error
	}{
		{"drop of an older collection", func(a w) {
			a.insert("db.c", d("_id", 9))
			if err := a.c.DropCollection("db", "other"); err != nil {
				a.t.Fatal(err)
			}
		}, ErrUnrecoverable},
		{"rename of an older collection", func(a w) {
			if err := a.c.RenameCollection("db", "other", "db", "renamed", false); err != nil {
				a.t.Fatal(err)
			}
		}, ErrUnrecoverable},
		{"drop of an older index", func(a w) {
			if err := a.c.DropIndexes(a.coll("db", "c"), []string{"a_1"}); err != nil {
				a.t.Fatal(err)
			}
		}, ErrUnrecoverable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPair(t)
			tt.tail(w{t, p.a})
			w{t, p.b}.insert("db.c", d("_id", 10))
			before := dump(t, p.a)
			ts, term := top(p.a)
			_, err := Run(context.Background(), Options{Catalog: p.a, Source: &fakeSource{cat: p.b}, DBPath: p.aDir, Logger: quiet})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if !reflect.DeepEqual(dump(t, p.a), before) {
				t.Error("the data changed")
			}
			if ts2, term2 := top(p.a); ts2 != ts || term2 != term {
				t.Error("the oplog changed")
			}
			if _, err := os.Stat(filepath.Join(p.aDir, "rollback")); !os.IsNotExist(err) {
				t.Errorf("rollback directory exists: %v", err)
			}
		})
	}
}

// TestRollbackNoCommonPoint: unrelated histories need an initial sync.
func TestRollbackNoCommonPoint(t *testing.T) {
	p := newPair(t)
	other := openCat(t, "", &clock{t0})
	other.Oplog().SetTerm(3)
	w{t, other}.insert("db.c", d("_id", 1))
	_, err := Run(context.Background(), Options{Catalog: p.a, Source: &fakeSource{cat: other}, DBPath: p.aDir, Logger: quiet})
	if !errors.Is(err, ErrNoCommonPoint) {
		t.Fatalf("err = %v, want ErrNoCommonPoint", err)
	}
}

// TestRollbackTailOnlyDDL: a collection created, renamed and dropped, and
// an index built and dropped, all after the common point, need nothing
// but the drop of what is left; a second run finds nothing to undo.
func TestRollbackTailOnlyDDL(t *testing.T) {
	p := newPair(t)
	a := w{t, p.a}
	a.insert("db.tmp", d("_id", 1))
	if err := p.a.RenameCollection("db", "tmp", "db", "tmp2", false); err != nil {
		t.Fatal(err)
	}
	if err := p.a.DropCollection("db", "tmp2"); err != nil {
		t.Fatal(err)
	}
	a.index("db.c", "z_1", d("z", int32(1)))
	if err := p.a.DropIndexes(a.coll("db", "c"), []string{"z_1"}); err != nil {
		t.Fatal(err)
	}
	a.insert("db.kept", d("_id", 1))
	opts := Options{Catalog: p.a, Source: &fakeSource{cat: p.b}, DBPath: p.aDir, Logger: quiet}
	res, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.CommonPoint != p.common || len(res.Files) != 1 {
		t.Errorf("result %+v, want common point %v and one file (db.kept)", res, p.common)
	}
	sameData(t, p.a, p.b)
	res, err = Run(context.Background(), opts)
	if err != nil || res.Undone != 0 || len(res.Files) != 0 || res.CommonPoint != p.common {
		t.Errorf("second run: %+v, %v", res, err)
	}
	p.closeA(t)
}

func TestRunOptions(t *testing.T) {
	if _, err := Run(context.Background(), Options{}); err == nil {
		t.Error("empty options accepted")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	uuid := bson.Binary{Subtype: 4, Data: []byte{0: 0xab, 15: 0xcd}}
	docs := []bson.D{d("_id", int32(1), "s", "x"), d("_id", "two", "n", bson.D{{Key: "a", Value: bson.A{int64(1)}}})}
	path, err := writeFile(dir, uuid, docs, t0)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "rollback", "ab000000-0000-0000-0000-0000000000cd")
	if filepath.Dir(path) != want {
		t.Errorf("dir %s, want %s", filepath.Dir(path), want)
	}
	got, err := ReadFile(path)
	if err != nil || !reflect.DeepEqual(got, docs) {
		t.Errorf("read back %v, %v; want %v", got, err, docs)
	}
	path2, err := writeFile(dir, uuid, docs[:1], t0)
	if err != nil || path2 == path {
		t.Errorf("second file %s (%v) collides with %s", path2, err, path)
	}
	raw, _ := os.ReadFile(path)
	if err := os.WriteFile(path, raw[:len(raw)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil {
		t.Error("a truncated file was read without error")
	}
}

// TestRollbackUniqueConflict: a refetched document that collides with an
// untouched local one on a unique index needs an initial sync.
func TestRollbackUniqueConflict(t *testing.T) {
	p := newPair(t)
	a, b := w{t, p.a}, w{t, p.b}
	a.set("db.c", 1, "u", 1)
	a.set("db.c", 2, "u", 2)
	spec := d("v", int32(2), "key", d("u", int32(1)), "name", "u_1", "unique", true, "sparse", true)
	if _, _, err := p.a.CreateIndexes(a.coll("db", "c"), []bson.D{spec}); err != nil {
		t.Fatal(err)
	}
	replicate(t, p.a, p.b, p.common.TS)
	a.set("db.c", 1, "u", 10) // the tail: doc 1 only
	b.set("db.c", 2, "u", 3)
	b.set("db.c", 1, "u", 2) // refetched doc 1 takes the u that a's doc 2 still has
	_, err := Run(context.Background(), Options{Catalog: p.a, Source: &fakeSource{cat: p.b}, DBPath: p.aDir, Logger: quiet})
	if !errors.Is(err, ErrUnrecoverable) {
		t.Errorf("err = %v, want ErrUnrecoverable", err)
	}
	p.closeA(t)
}
