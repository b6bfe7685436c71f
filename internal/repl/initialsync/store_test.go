package initialsync

import (
	"bytes"
	"crypto/rand"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
)

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

func newUUID() bson.Binary {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: b}
}

func encode(t *testing.T, doc bson.D) []byte {
	t.Helper()
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestCloneWritesNoOplogAndKeepsCounters: a cloned collection has the
// given UUID, options and indexes; cloned documents (including an upsert)
// have their index entries and exact counters; nothing reaches the oplog.
func TestCloneWritesNoOplogAndKeepsCounters(t *testing.T) {
	c := openMem(t)
	uuid := newUUID()
	coll, err := cloneCollection(c, "app", "a", uuid, d("validationLevel", "moderate"), []bson.D{
		spec("_id_", d("_id", int32(1))), spec("x_1", d("x", int32(1)), "unique", true), spec("t_1", d("t", int32(1))),
	})
	if err != nil {
		t.Fatal(err)
	}
	docs := [][]byte{encode(t, d("_id", 1, "x", 1, "t", bson.A{"a", "b"})), encode(t, d("_id", 2, "x", 2)),
		encode(t, d("_id", 1, "x", 3))} // the last replaces the first
	if err := cloneDocuments(c, coll, docs, nil); err != nil {
		t.Fatal(err)
	}
	coll = c.CollectionByUUID(coll.UUID)
	if !bytes.Equal(coll.UUID.Data, uuid.Data) || len(coll.Indexes()) != 3 || coll.Options[0].Key != "validationLevel" {
		t.Fatalf("clone metadata: uuid %x indexes %d options %v", coll.UUID.Data, len(coll.Indexes()), coll.Options)
	}
	if coll.Count() != 2 || coll.DataSize() != int64(len(docs[1])+len(docs[2])) {
		t.Fatalf("count %d size %d", coll.Count(), coll.DataSize())
	}
	if top, _ := c.Oplog().Top(); !top.IsZero() {
		t.Fatalf("clone wrote oplog entries (top %v)", top)
	}
	r, err := c.Check()
	if err != nil || !r.OK() {
		t.Fatalf("verify: %v %v", r.Problems, err)
	}
	if _, err := cloneCollection(c, "app", "a", newUUID(), nil, nil); err == nil {
		t.Fatal("cloning over an existing collection succeeded")
	}
}

// TestRelaxedUniqueConflictIsRepaired: with relaxed constraints a unique
// conflict is tolerated; once the data is consistent the rebuild leaves
// the index matching the documents, and strict mode rejects conflicts.
func TestRelaxedUniqueConflictIsRepaired(t *testing.T) {
	c := openMem(t)
	coll, err := cloneCollection(c, "app", "a", newUUID(), nil, []bson.D{spec("x_1", d("x", int32(1)), "unique", true)})
	if err != nil {
		t.Fatal(err)
	}
	rebuild := catalog.IndexSet{}
	if err := cloneDocuments(c, coll, [][]byte{encode(t, d("_id", 1, "x", 5)), encode(t, d("_id", 2, "x", 5))}, rebuild); err != nil {
		t.Fatalf("relaxed clone: %v", err)
	}
	// A later write resolves the conflict (as a later oplog entry would).
	if err := cloneDocuments(c, coll, [][]byte{encode(t, d("_id", 1, "x", 6))}, rebuild); err != nil {
		t.Fatal(err)
	}
	if len(rebuild) != 1 {
		t.Fatalf("indexes to rebuild: %v", rebuild)
	}
	if r, _ := c.Check(); r.OK() {
		t.Fatal("expected the skipped entry to show before the repair")
	}
	if n, err := c.RebuildIndexes(rebuild); err != nil || n != 1 {
		t.Fatalf("repair = %d, %v", n, err)
	}
	if r, err := c.Check(); err != nil || !r.OK() {
		t.Fatalf("verify after repair: %v %v", r.Problems, err)
	}
	if err := cloneDocuments(c, coll, [][]byte{encode(t, d("_id", 3, "x", 6))}, nil); err == nil {
		t.Fatal("strict mode accepted a unique conflict")
	}
}
