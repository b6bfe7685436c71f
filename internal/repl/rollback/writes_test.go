package rollback

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/catalog/catalogtest"
)

func TestRollbackSetDocument(t *testing.T) {
	tests := []struct {
		name      string
		start     []bson.D // documents before
		id        any
		doc       bson.D // nil = delete
		wantOld   bson.D
		wantCount int64
		wantA     []any // _ids found by the a index, ascending
	}{
		{"replace", []bson.D{d("_id", 1, "a", 1)}, 1, d("_id", 1, "a", 5), d("_id", 1, "a", 1), 1, []any{1}},
		{"insert absent", []bson.D{d("_id", 1, "a", 1)}, 2, d("_id", 2, "a", 0), nil, 2, []any{2, 1}},
		{"delete", []bson.D{d("_id", 1, "a", 1), d("_id", 2, "a", 2)}, 1, nil, d("_id", 1, "a", 1), 1, []any{2}},
		{"delete absent", []bson.D{d("_id", 1, "a", 1)}, 9, nil, nil, 1, []any{1}},
		{"unchanged", []bson.D{d("_id", 1, "a", 1)}, 1, d("_id", 1, "a", 1), d("_id", 1, "a", 1), 1, []any{1}},
		{"array makes multikey", nil, 1, d("_id", 1, "a", bson.A{3, 4}), nil, 1, []any{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := openMem(t)
			coll := mustColl(t, c, "db", "c")
			mustIndex(t, c, coll, spec("a_1", d("a", 1)))
			mustInsert(t, c, coll, tt.start...)
			top, _ := c.Oplog().Top()
			old, err := setDocument(c, coll, tt.id, tt.doc)
			if err != nil {
				t.Fatal(err)
			}
			if !bsonx.Equal(old, tt.wantOld) && !(old == nil && tt.wantOld == nil) {
				t.Errorf("old = %v, want %v", old, tt.wantOld)
			}
			if now, _ := c.Oplog().Top(); now != top {
				t.Errorf("an oplog entry was written: top %v -> %v", top, now)
			}
			coll = live(c, coll)
			if coll.Count() != tt.wantCount {
				t.Errorf("count = %d, want %d", coll.Count(), tt.wantCount)
			}
			got := ids(t, coll.ScanIndex(coll.Index("a_1"), nil, nil, false))
			if !bsonx.Equal(bson.A(got), bson.A(tt.wantA)) {
				t.Errorf("a_1 yields %v, want %v", got, tt.wantA)
			}
			if a, _ := bsonx.Get(tt.doc, "a"); isArray(a) && !coll.Index("a_1").Multikey {
				t.Error("a_1 not marked multikey")
			}
			raw, ok, _ := coll.FindByID(tt.id)
			if (tt.doc == nil) == ok {
				t.Fatalf("document present = %v after setting %v", ok, tt.doc)
			}
			if ok {
				doc, _ := bsonx.Decode(raw)
				if !bsonx.Equal(doc, tt.doc) {
					t.Errorf("stored %v, want %v", doc, tt.doc)
				}
			}
			mustVerify(t, c)
		})
	}
}

func TestRollbackSetDocumentErrors(t *testing.T) {
	c := openMem(t)
	coll := mustColl(t, c, "db", "c")
	mustIndex(t, c, coll, spec("u_1", d("u", 1), "unique", true))
	mustInsert(t, c, coll, d("_id", 1, "u", 1), d("_id", 2, "u", 2))
	var dup *catalog.DuplicateKeyError
	if _, err := setDocument(c, coll, 2, d("_id", 2, "u", 1)); !errors.As(err, &dup) {
		t.Errorf("unique conflict: got %v, want DuplicateKey", err)
	}
	if _, err := setDocument(c, coll, 2, d("_id", 3, "u", 3)); err == nil {
		t.Error("a document with another _id was accepted")
	}
	mustVerify(t, c)
	if live(c, coll).Count() != 2 {
		t.Errorf("count = %d after failed writes", live(c, coll).Count())
	}
}

func TestRollbackDropCollectionAndIndex(t *testing.T) {
	c := openMem(t)
	keep := mustColl(t, c, "db", "keep")
	gone := mustColl(t, c, "db", "gone")
	mustIndex(t, c, keep, spec("a_1", d("a", 1)), spec("b_1", d("b", 1)))
	mustIndex(t, c, gone, spec("a_1", d("a", 1)))
	mustInsert(t, c, keep, d("_id", 1, "a", 1, "b", 1))
	mustInsert(t, c, gone, d("_id", 1, "a", 1))
	top, _ := c.Oplog().Top()

	if ok, err := dropIndexOf(c, keep, "b_1"); err != nil || !ok {
		t.Fatalf("drop index: %v, %v", ok, err)
	}
	if ok, err := dropIndexOf(c, keep, "b_1"); err != nil || ok {
		t.Errorf("second drop of b_1: %v, %v", ok, err)
	}
	if _, err := dropIndexOf(c, keep, "_id_"); err == nil {
		t.Error("dropping _id_ was accepted")
	}
	if ok, err := dropCollectionByUUID(c, bson.Binary{Subtype: 4, Data: make([]byte, 16)}); err != nil || ok {
		t.Errorf("drop of an unknown UUID: %v, %v", ok, err)
	}
	if ok, err := dropCollectionByUUID(c, gone.UUID); err != nil || !ok {
		t.Fatalf("drop collection: %v, %v", ok, err)
	}
	if c.Collection("db", "gone") != nil || c.CollectionByUUID(gone.UUID) != nil {
		t.Error("dropped collection still listed")
	}
	if names := indexNames(live(c, keep)); len(names) != 2 || names[1] != "a_1" {
		t.Errorf("indexes after drop: %v", names)
	}
	if now, _ := c.Oplog().Top(); now != top {
		t.Errorf("an oplog entry was written: top %v -> %v", top, now)
	}
	mustVerify(t, c)
}

func isArray(v any) bool {
	_, ok := v.(bson.A)
	return ok
}

func indexNames(coll *catalog.Collection) []string {
	var out []string
	for _, idx := range coll.Indexes() {
		out = append(out, idx.Name)
	}
	return out
}

// Shared setup helpers (catalogtest).
var (
	openMem    = catalogtest.OpenMem
	mustColl   = catalogtest.Coll
	spec       = catalogtest.Spec
	mustInsert = catalogtest.Insert
	mustIndex  = catalogtest.Index
	live       = catalogtest.Live
)

// mustVerify fails unless the catalog is internally consistent.
func mustVerify(t testing.TB, c *catalog.Catalog) { t.Helper(); catalogtest.Verify(t, c) }

// ids returns the _id of each document it yields.
func ids(t testing.TB, it catalog.DocIterator) []any {
	t.Helper()
	var out []any
	for _, doc := range catalogtest.Drain(t, it) {
		out = append(out, doc[0].Value)
	}
	return out
}
