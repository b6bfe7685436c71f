// Package catalogtest has the helpers tests of the packages above catalog
// share: an in-memory catalog and one-line collection, insert and index
// setup that fail the test on error. It is imported only by tests.
package catalogtest

import (
	"io"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/storage"
)

// OpenMem opens an in-memory catalog without the TTL monitor and with a
// silent logger, closed when t ends.
func OpenMem(t testing.TB) *catalog.Catalog {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Coll creates db.name.
func Coll(t testing.TB, c *catalog.Catalog, db, name string) *catalog.Collection {
	t.Helper()
	coll, err := c.CreateCollection(db, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return coll
}

// D builds a document from alternating keys and values.
func D(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// Spec is an index spec {key, name, opts...}.
func Spec(name string, key bson.D, opts ...any) bson.D {
	return append(D("key", key, "name", name), D(opts...)...)
}

// Insert inserts docs into coll.
func Insert(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, docs ...bson.D) {
	t.Helper()
	for _, doc := range docs {
		if _, err := c.Insert(coll, doc); err != nil {
			t.Fatalf("insert %v: %v", doc, err)
		}
	}
}

// Index creates indexes on coll.
func Index(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, specs ...bson.D) {
	t.Helper()
	if _, _, err := c.CreateIndexes(coll, specs); err != nil {
		t.Fatalf("create indexes: %v", err)
	}
}

// Live returns the current value of coll (indexes and multikey flags are
// published as new values).
func Live(c *catalog.Catalog, coll *catalog.Collection) *catalog.Collection {
	return c.CollectionByUUID(coll.UUID)
}

// Drain decodes every document it yields and closes it.
func Drain(t testing.TB, it catalog.DocIterator) []bson.D {
	t.Helper()
	defer it.Close()
	var out []bson.D
	for raw, ok := it.Next(); ok; raw, ok = it.Next() {
		var doc bson.D
		if err := bson.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		out = append(out, doc)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Verify fails t unless the catalog is internally consistent (documents
// against every index, counters, the oplog's order).
func Verify(t testing.TB, c *catalog.Catalog) catalog.Report {
	t.Helper()
	r, err := c.Check()
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("verify: %v", r.Problems)
	}
	return r
}

// IDsAt returns the int32 _ids of coll as of snapshot s, by a collection scan.
func IDsAt(t testing.TB, coll *catalog.Collection, s *catalog.Snapshot) []int32 {
	t.Helper()
	var ids []int32
	for _, doc := range Drain(t, coll.ScanAt(s, false)) {
		ids = append(ids, doc[0].Value.(int32))
	}
	return ids
}
