package catalog

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/storage/keystring"
)

func openMem(t testing.TB) *Catalog {
	t.Helper()
	c, err := Open(Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func mustColl(t testing.TB, c *Catalog, db, name string) *Collection {
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

func mustInsert(t testing.TB, c *Catalog, coll *Collection, docs ...bson.D) {
	t.Helper()
	for _, doc := range docs {
		if _, err := c.Insert(coll, doc); err != nil {
			t.Fatalf("insert %v: %v", doc, err)
		}
	}
}

func mustIndex(t testing.TB, c *Catalog, coll *Collection, specs ...bson.D) {
	t.Helper()
	if _, _, err := c.CreateIndexes(coll, specs); err != nil {
		t.Fatalf("create indexes: %v", err)
	}
}

// live returns the current value of coll (indexes/multikey published later).
func live(c *Catalog, coll *Collection) *Collection {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mu.byID[coll.ID]
}

// drain decodes every document of it.
func drain(t testing.TB, it DocIterator) []bson.D {
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

// ids returns the _id of each doc.
func ids(docs []bson.D) []any {
	var out []any
	for _, doc := range docs {
		out = append(out, doc[0].Value)
	}
	return out
}

// ks encodes ascending index bounds.
func ks(vals ...any) []byte {
	var b []byte
	for _, v := range vals {
		b = keystring.AppendValue(b, v, false)
	}
	return b
}

// mustVerify fails unless the catalog is internally consistent.
func mustVerify(t testing.TB, c *Catalog) Report {
	t.Helper()
	r, err := c.verify()
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() {
		t.Fatalf("verify: %v", r.Problems)
	}
	return r
}

var _ = time.Second

func mongoerrAs(err error, target **DuplicateKeyError) bool {
	return errors.As(err, target)
}

func catalogKeyOf(coll *Collection) []byte { return storage.CatalogKey(coll.ID) }
