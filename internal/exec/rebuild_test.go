package exec

import (
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/session"
	"github.com/relaydb/relaydb/internal/storage"
)

// TestBackgroundRebuildFindsEveryChunk: an oplog larger than
// syncRebuildMax is replayed in the background, chunk by chunk from the
// newest; a restarted engine recognises statements from the newest and
// from the oldest chunk, and Close stops it cleanly.
func TestBackgroundRebuildFindsEveryChunk(t *testing.T) {
	fs := vfs.NewMem()
	open := func() *catalog.Catalog {
		cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true, FS: fs}, TTLInterval: -1})
		if err != nil {
			t.Fatal(err)
		}
		return cat
	}
	cat := open()
	n := syncRebuildMax + 2*rebuildChunk + 7
	lsid := func(i int) bson.D {
		return bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte{byte(i >> 16), byte(i >> 8), byte(i), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}}}}
	}
	log := cat.Oplog()
	for i := 0; i < n; i++ {
		s := log.Reserve()
		b := cat.Engine().NewBatch()
		e := &oplog.Entry{Op: oplog.OpNoop, NS: "db.c", O: bson.D{{Key: "i", Value: int32(i)}},
			Extra: bson.D{{Key: "lsid", Value: lsid(i)}, {Key: "txnNumber", Value: int64(3)}, {Key: "stmtId", Value: int32(i % 5)}}}
		if err := log.Append(b, s, e); err != nil {
			t.Fatal(err)
		}
		if _, err := cat.Engine().Commit(b, false); err != nil {
			t.Fatal(err)
		}
		log.Commit(s)
	}
	if err := cat.Close(); err != nil {
		t.Fatal(err)
	}
	cat = open()
	defer cat.Close()
	e := New(cat, nil)
	defer e.Close()
	for _, i := range []int{0, n / 2, n - 1} {
		k, _ := session.KeyOf(lsid(i))
		if _, ok := e.Sessions().Executed(k, 3, int32(i%5)); !ok {
			t.Errorf("statement of entry %d of %d not rebuilt", i, n)
		}
	}
	if e.rebuild.stop == nil {
		t.Error("an oplog over syncRebuildMax was replayed before New returned")
	}
}
