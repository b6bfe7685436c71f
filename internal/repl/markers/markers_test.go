package markers_test

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/storage"
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
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

func mustColl(t testing.TB, c *catalog.Catalog, db, name string) *catalog.Collection {
	t.Helper()
	coll, err := c.CreateCollection(db, name, nil)
	must(t, err)
	return coll
}

func mustIndex(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, specs ...bson.D) {
	t.Helper()
	_, _, err := c.CreateIndexes(coll, specs)
	must(t, err)
}

func mustInsert(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, docs ...bson.D) {
	t.Helper()
	for _, doc := range docs {
		_, err := c.Insert(coll, doc)
		must(t, err)
	}
}

func TestSetMinValidAndTTLPause(t *testing.T) {
	now := time.Unix(10000, 0)
	c, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1, Now: func() time.Time { return now }})
	must(t, err)
	defer c.Close()
	ot := oplog.OpTime{TS: bson.Timestamp{T: 5, I: 6}, Term: 7}
	must(t, markers.SetMinValid(c, ot))
	if m, _ := markers.Read(c); m.MinValid != ot {
		t.Fatalf("minValid %v", m.MinValid)
	}
	coll := mustColl(t, c, "app", "t")
	mustIndex(t, c, coll, spec("at_1", d("at", 1), "expireAfterSeconds", int32(1)))
	mustInsert(t, c, coll, d("_id", 1, "at", bson.NewDateTimeFromTime(time.Unix(1, 0))))
	for _, tc := range []struct {
		paused bool
		want   int
	}{{true, 0}, {false, 1}} {
		c.SetTTLPaused(tc.paused)
		if n, err := c.ReapTTL(); err != nil || n != tc.want {
			t.Fatalf("paused=%v: reaped %d %v", tc.paused, n, err)
		}
	}
}
