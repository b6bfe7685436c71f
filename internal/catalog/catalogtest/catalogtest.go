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
