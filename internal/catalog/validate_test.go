package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

// TestValidate: the validate command's check counts records and index
// keys (an array field gives one key per element) and finds an index
// entry gone missing.
func TestValidate(t *testing.T) {
	c, err := Open(Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	coll, err := c.CreateCollection("db", "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.CreateIndexes(coll, []bson.D{{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}}}); err != nil {
		t.Fatal(err)
	}
	for i, a := range []any{int32(1), bson.A{int32(2), int32(3)}, "x"} {
		if _, err := c.Insert(coll, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: a}}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := c.Validate(coll)
	if err != nil {
		t.Fatal(err)
	}
	want := []IndexKeys{{"_id_", 3}, {"a_1", 4}}
	if res.NRecords != 3 || len(res.Problems) != 0 || len(res.KeysPerIndex) != 2 ||
		res.KeysPerIndex[0] != want[0] || res.KeysPerIndex[1] != want[1] {
		t.Fatalf("validate = %+v, want 3 records, keys %v, no problems", res, want)
	}
	// Remove one entry of a_1 behind the catalog's back.
	idx := coll.Indexes()[1]
	p := storage.IndexPrefix(idx.ID)
	it, err := c.eng.NewIter(p, storage.PrefixEnd(p))
	if err != nil {
		t.Fatal(err)
	}
	if !it.First() {
		t.Fatal("no index entry")
	}
	key := append([]byte(nil), it.Key()...)
	it.Close()
	b := c.eng.NewBatch()
	if err := b.Delete(key); err != nil {
		t.Fatal(err)
	}
	if _, err := c.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	if res, err = c.Validate(coll); err != nil || len(res.Problems) == 0 || res.KeysPerIndex[1].Keys != 3 {
		t.Fatalf("validate after losing an index entry = %+v, %v; want a problem and 3 keys", res, err)
	}
}
