package applier

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/catalog/catalogtest"
	"github.com/relaydb/relaydb/internal/oplog"
)

// applyBatch is ApplyBatch with the default logger, for tests.
func applyBatch(c *catalog.Catalog, entries []*oplog.Entry) error {
	_, err := ApplyBatch(c, entries, nil)
	return err
}

// drain decodes every document of it.
// Shared setup helpers (catalogtest).
var (
	d          = catalogtest.D
	openMem    = catalogtest.OpenMem
	mustColl   = catalogtest.Coll
	spec       = catalogtest.Spec
	mustInsert = catalogtest.Insert
	mustIndex  = catalogtest.Index
	live       = catalogtest.Live
)

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
