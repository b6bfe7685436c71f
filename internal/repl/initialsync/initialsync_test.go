package initialsync

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/markers"
)

const nDocs = 600

// seed fills the source: app.a with options and several kinds of index,
// app.b and other.c.
func seed(t *testing.T, src *catalog.Catalog) *catalog.Collection {
	t.Helper()
	a, err := src.CreateCollection("app", "a", bson.D{{Key: "validationLevel", Value: "moderate"}})
	if err != nil {
		t.Fatal(err)
	}
	ttl := int64(3600)
	_, _, err = src.CreateIndexes(a, []bson.D{
		{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "x", Value: int32(1)}}}, {Key: "name", Value: "x_1"}, {Key: "unique", Value: true}},
		{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "y", Value: int32(1)}, {Key: "tags", Value: int32(-1)}}}, {Key: "name", Value: "y_tags"}},
		{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "s", Value: int32(1)}}}, {Key: "name", Value: "s_sparse"}, {Key: "sparse", Value: true}},
		{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "at", Value: int32(1)}}}, {Key: "name", Value: "at_ttl"}, {Key: "expireAfterSeconds", Value: ttl}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < nDocs; i++ {
		doc := bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}, {Key: "y", Value: int32(i % 7)},
			{Key: "tags", Value: bson.A{"t" + string(rune('a'+i%5)), int32(i % 3)}}}
		if i%4 == 0 {
			doc = append(doc, bson.E{Key: "s", Value: "sparse"})
		}
		mustInsert(t, src, a, doc)
	}
	b, _, err := src.EnsureCollection("app", "b")
	if err != nil {
		t.Fatal(err)
	}
	mustInsert(t, src, b, bson.D{{Key: "_id", Value: "only"}})
	c, _, err := src.EnsureCollection("other", "c")
	if err != nil {
		t.Fatal(err)
	}
	mustInsert(t, src, c, bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "n", Value: 1.5}})
	return a
}

func mustInsert(t testing.TB, cat *catalog.Catalog, coll *catalog.Collection, doc bson.D) {
	t.Helper()
	if _, err := cat.Insert(coll, doc); err != nil {
		t.Fatal(err)
	}
}

// set updates document id of coll with $set fields (the oplog form the
// primary logs).
func set(t testing.TB, cat *catalog.Catalog, coll *catalog.Collection, id any, fields bson.D) {
	t.Helper()
	raw, ok, err := coll.FindByID(id)
	if err != nil || !ok {
		t.Fatalf("find %v: %v %v", id, ok, err)
	}
	old, _ := bsonx.Decode(raw)
	doc := append(bson.D(nil), old...)
	for _, f := range fields {
		found := false
		for i := range doc {
			if doc[i].Key == f.Key {
				doc[i].Value, found = f.Value, true
			}
		}
		if !found {
			doc = append(doc, f)
		}
	}
	if _, err := cat.Update(coll, old, doc, bson.D{{Key: "$set", Value: fields}}); err != nil {
		t.Fatal(err)
	}
}

func del(t testing.TB, cat *catalog.Catalog, coll *catalog.Collection, id any) {
	t.Helper()
	raw, ok, err := coll.FindByID(id)
	if err != nil || !ok {
		t.Fatalf("find %v: %v %v", id, ok, err)
	}
	old, _ := bsonx.Decode(raw)
	if _, err := cat.Delete(coll, old); err != nil {
		t.Fatal(err)
	}
}

func opts() Options {
	return Options{Logger: quiet(), BatchSize: 50,
		Fetcher: &fetcher.Fetcher{BatchSize: 64, MaxAwait: 20 * time.Millisecond, Logger: quiet()}}
}

// TestCloneAndCatchUp writes on the source while app.a is being cloned
// (between find batches): updates and deletes of documents already copied
// and not yet copied, inserts, a unique key moving from one document to
// another, DDL. After Run the destination holds the source's data.
func TestCloneAndCatchUp(t *testing.T) {
	src, conn := startSource(t)
	a := seed(t, src)
	dst := openMem(t)
	var getMores atomic.Int32
	hs := &hookSource{Source: conn}
	hs.before = func(db string, cmd bson.D) error {
		if cmd[0].Key == "listIndexes" && db == "app" && cmd[0].Value == "a" {
			// Before app.a's snapshot: replaying the first entry puts key
			// -7 on document 50 while the cloned document 60 holds it.
			set(t, src, a, int32(50), bson.D{{Key: "x", Value: int32(-7)}})
			set(t, src, a, int32(50), bson.D{{Key: "x", Value: int32(50)}})
			set(t, src, a, int32(60), bson.D{{Key: "x", Value: int32(-7)}})
			return nil
		}
		if cmd[0].Key != "getMore" || db != "app" || lookup(cmd, "collection") != "a" {
			return nil
		}
		switch getMores.Add(1) {
		case 2: // documents 0..99 are copied, 100.. are not
			set(t, src, a, int32(10), bson.D{{Key: "x", Value: int32(-10)}, {Key: "y", Value: "moved"}})
			set(t, src, a, int32(500), bson.D{{Key: "x", Value: int32(10)}}) // takes the unique key 10
			set(t, src, a, int32(450), bson.D{{Key: "s", Value: "now"}})
			del(t, src, a, int32(20))
			del(t, src, a, int32(400))
			mustInsert(t, src, a, bson.D{{Key: "_id", Value: int32(5000)}, {Key: "x", Value: int32(5000)}})
			mustInsert(t, src, a, bson.D{{Key: "_id", Value: int32(-1)}, {Key: "x", Value: int32(-1000)}})
		case 4:
			set(t, src, a, int32(500), bson.D{{Key: "x", Value: int32(500)}})
			set(t, src, a, int32(30), bson.D{{Key: "x", Value: int32(10)}}) // key 10 moves again
			if _, _, err := src.CreateIndexes(a, []bson.D{{{Key: "v", Value: int32(2)},
				{Key: "key", Value: bson.D{{Key: "late", Value: int32(1)}}}, {Key: "name", Value: "late_1"}}}); err != nil {
				t.Error(err)
			}
			if err := src.DropCollection("app", "b"); err != nil {
				t.Error(err)
			}
			nc, err := src.CreateCollection("app", "new", bson.D{{Key: "comment", Value: "made during clone"}})
			if err != nil {
				t.Error(err)
			} else {
				mustInsert(t, src, nc, bson.D{{Key: "_id", Value: int32(1)}})
			}
		}
		return nil
	}
	o := opts()
	o.AfterClone = func() { set(t, src, a, int32(7), bson.D{{Key: "late", Value: true}}) }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := Run(ctx, dst, hs, o)
	if err != nil {
		t.Fatal(err)
	}
	if getMores.Load() < 4 {
		t.Fatalf("only %d getMores on app.a: the concurrent writes never ran", getMores.Load())
	}
	if !res.Begin.Less(res.Stop) || res.Applied.Less(res.Stop) || res.Documents < nDocs {
		t.Fatalf("result %+v", res)
	}
	if res.Rebuilt == 0 {
		t.Errorf("expected the unique index to be rebuilt after relaxed application: %+v", res)
	}
	// The source may have written after the stop point; apply to its top.
	catchUpTo(t, dst, conn)
	assertSameData(t, src, dst)
	if first := dst.Oplog().First(); first != res.Begin.TS {
		t.Errorf("local oplog starts at %v, want the begin point %v", first, res.Begin.TS)
	}
	if flag, _ := markers.InitialSyncFlag(dst); flag {
		t.Error("initial-sync flag still set")
	}
	m, err := markers.Read(dst)
	if err != nil || m.MinValid != res.Stop {
		t.Errorf("minValid %v (%v), want %v", m.MinValid, err, res.Stop)
	}
}

// catchUpTo applies the source's remaining entries to dst.
func catchUpTo(t *testing.T, dst *catalog.Catalog, src Source) {
	t.Helper()
	ts, term := dst.Oplog().Top()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	want, err := oplogTop(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if want.TS == ts {
		return
	}
	f := &fetcher.Fetcher{MaxAwait: 20 * time.Millisecond, Logger: quiet()}
	err = f.Run(ctx, src, opTime(ts, term), func(b []*oplogEntry) error {
		if _, err := applier.ApplyBatch(dst, b, quiet()); err != nil {
			return err
		}
		if top, _ := dst.Oplog().Top(); !top.Before(want.TS) {
			return errReached
		}
		return nil
	})
	if !errors.Is(err, errReached) {
		t.Fatal(err)
	}
}
