package applier

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/storage"
)

// applyBatch is ApplyBatch with the default logger, for tests.
func applyBatch(c *catalog.Catalog, entries []*oplog.Entry) error {
	_, err := ApplyBatch(c, entries, nil)
	return err
}

func openMem(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func mustColl(t testing.TB, c *catalog.Catalog, db, name string) *catalog.Collection {
	t.Helper()
	coll, err := c.CreateCollection(db, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return coll
}

func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

func spec(name string, key bson.D, opts ...any) bson.D {
	return append(d("key", key, "name", name), d(opts...)...)
}

func mustInsert(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, docs ...bson.D) {
	t.Helper()
	for _, doc := range docs {
		if _, err := c.Insert(coll, doc); err != nil {
			t.Fatalf("insert %v: %v", doc, err)
		}
	}
}

func mustIndex(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, specs ...bson.D) {
	t.Helper()
	if _, _, err := c.CreateIndexes(coll, specs); err != nil {
		t.Fatalf("create indexes: %v", err)
	}
}

// live returns the current value of coll (indexes/multikey published later).
func live(c *catalog.Catalog, coll *catalog.Collection) *catalog.Collection {
	return c.CollectionByUUID(coll.UUID)
}

// drain decodes every document of it.
func drain(t testing.TB, it catalog.DocIterator) []bson.D {
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

// mustVerify fails unless the catalog is internally consistent.
func mustVerify(t testing.TB, c *catalog.Catalog) catalog.Report {
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
