package storage

import (
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage/keystring"
)

func dmKey(coll uint32, id string) []byte {
	return DocKey(coll, keystring.AppendValue(nil, id, false))
}

// commitDocs writes documents {_id: id} of collection coll, a collection
// of the local database (so that the invariants build's checks find its
// catalog entry and want no oplog entry), and deletes del.
func commitDocs(t *testing.T, e *Engine, coll uint32, set, del []string) {
	t.Helper()
	b := e.NewBatch()
	entry, err := bson.Marshal(bson.D{{Key: "id", Value: int64(coll)}, {Key: "db", Value: "local"}, {Key: "name", Value: "c"},
		{Key: "uuid", Value: bson.Binary{Subtype: 4, Data: []byte("uuid-local-docmx")}}, {Key: "options", Value: bson.D{}}, {Key: "indexes", Value: bson.A{}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Set(CatalogKey(coll), entry); err != nil {
		t.Fatal(err)
	}
	for _, id := range set {
		raw, err := bson.Marshal(bson.D{{Key: "_id", Value: id}})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Set(dmKey(coll, id), raw); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range del {
		if err := b.Delete(dmKey(coll, id)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Commit(b, false); err != nil {
		t.Fatal(err)
	}
}

// TestMayHoldDoc: "absent" only above every key the collection ever held,
// before and after a restart (the bound then comes from the store).
func TestMayHoldDoc(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	commitDocs(t, e, 7, []string{"b", "d"}, nil)
	commitDocs(t, e, 7, []string{"c"}, []string{"d"}) // a delete keeps the bound
	check := func(when string, e *Engine, cases []struct {
		coll uint32
		id   string
		want bool
	}) {
		t.Helper()
		for _, tc := range cases {
			got, err := e.MayHoldDoc(dmKey(tc.coll, tc.id))
			if err != nil || got != tc.want {
				t.Errorf("%s: MayHoldDoc(%d, %q) = %v, %v; want %v", when, tc.coll, tc.id, got, err, tc.want)
			}
		}
	}
	check("before restart", e, []struct {
		coll uint32
		id   string
		want bool
	}{{7, "a", false}, {7, "b", true}, {7, "c", true}, {7, "d", true}, {7, "e", false}, {8, "a", false}, {6, "z", false}})
	if got, _ := e.MayHoldDoc(CollStatsKey(7)); !got {
		t.Errorf("a key that is no document must be probed")
	}
	commitDocs(t, e, 7, []string{"x"}, nil) // raises a bound already filled
	check("after a commit", e, []struct {
		coll uint32
		id   string
		want bool
	}{{7, "e", false}, {7, "d", true}, {7, "x", true}, {7, "y", false}})
	commitDocs(t, e, 8, []string{"m"}, nil)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{InMemory: true, FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	check("after restart", e, []struct {
		coll uint32
		id   string
		want bool
	}{{7, "a", false}, {7, "d", false}, {7, "c", true}, {7, "x", true}, {7, "xa", false}, {8, "m", true}, {8, "n", false}, {9, "a", false}})
	commitDocs(t, e, 9, []string{"q"}, nil) // a collection first seen by a commit
	check("after a first commit", e, []struct {
		coll uint32
		id   string
		want bool
	}{{9, "q", true}, {9, "a", false}, {9, "r", false}})
}
