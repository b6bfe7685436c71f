package rollback

import (
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"sort"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/storage"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// clock is a settable wall clock for a catalog's oplog timestamps.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// openCat opens a catalog in dir ("" = in memory, closed at cleanup) on
// clk; the caller closes an on-disk one.
func openCat(t *testing.T, dir string, clk *clock) *catalog.Catalog {
	t.Helper()
	so := storage.Options{Dir: dir, InMemory: dir == ""}
	c, err := catalog.Open(catalog.Options{Storage: so, TTLInterval: -1, Now: clk.now, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		t.Cleanup(func() { _ = c.Close() })
	}
	return c
}

func d(kv ...any) bson.D {
	out := bson.D{}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return out
}

// w applies test writes to a catalog, failing the test on error.
type w struct {
	t *testing.T
	c *catalog.Catalog
}

func (w w) coll(db, name string) *catalog.Collection {
	w.t.Helper()
	coll, _, err := w.c.EnsureCollection(db, name)
	if err != nil {
		w.t.Fatal(err)
	}
	return coll
}

func (w w) insert(ns string, docs ...bson.D) {
	w.t.Helper()
	coll := w.coll(split(ns))
	for _, doc := range docs {
		if _, err := w.c.Insert(coll, doc); err != nil {
			w.t.Fatalf("insert %v: %v", doc, err)
		}
	}
}

// set replaces the fields of document id (a $set in the oplog).
func (w w) set(ns string, id any, kv ...any) {
	w.t.Helper()
	coll := w.coll(split(ns))
	old := w.get(coll, id)
	upd := d(kv...)
	newDoc := append(bson.D(nil), old...)
	for _, f := range upd {
		newDoc = setField(newDoc, f)
	}
	o := d("$set", upd)
	if _, err := w.c.Update(coll, old, newDoc, o); err != nil {
		w.t.Fatalf("update %v: %v", id, err)
	}
}

func setField(doc bson.D, f bson.E) bson.D {
	for i := range doc {
		if doc[i].Key == f.Key {
			doc[i].Value = f.Value
			return doc
		}
	}
	return append(doc, f)
}

func (w w) del(ns string, id any) {
	w.t.Helper()
	coll := w.coll(split(ns))
	if _, err := w.c.Delete(coll, w.get(coll, id)); err != nil {
		w.t.Fatalf("delete %v: %v", id, err)
	}
}

func (w w) index(ns, name string, key bson.D) {
	w.t.Helper()
	spec := d("v", int32(2), "key", key, "name", name)
	if _, _, err := w.c.CreateIndexes(w.coll(split(ns)), []bson.D{spec}); err != nil {
		w.t.Fatal(err)
	}
}

func (w w) get(coll *catalog.Collection, id any) bson.D {
	w.t.Helper()
	raw, ok, err := coll.FindByID(id)
	if err != nil || !ok {
		w.t.Fatalf("%s _id %v: found %v, %v", coll.NS(), id, ok, err)
	}
	doc, err := bsonx.Decode(raw)
	if err != nil {
		w.t.Fatal(err)
	}
	return doc
}

func split(ns string) (string, string) {
	for i := range ns {
		if ns[i] == '.' {
			return ns[:i], ns[i+1:]
		}
	}
	return ns, ""
}

// replicate applies every entry of from after ts to to.
func replicate(t *testing.T, from, to *catalog.Catalog, after bson.Timestamp) {
	t.Helper()
	entries, err := from.Oplog().Read(after, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := applier.ApplyBatch(to, entries, quiet); err != nil {
		t.Fatal(err)
	}
}

// dump describes a catalog's replicated data: per namespace, the UUID,
// the indexes and the documents in _id order.
func dump(t *testing.T, c *catalog.Catalog) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, db := range c.Databases() {
		if db == catalog.LocalDB {
			continue
		}
		for _, coll := range c.Collections(db) {
			var lines []string
			lines = append(lines, fmt.Sprintf("uuid %x", coll.UUID.Data))
			for _, idx := range coll.Indexes() {
				lines = append(lines, fmt.Sprintf("index %s %v", idx.Name, idx.Key))
			}
			docs, err := allDocs(coll)
			if err != nil {
				t.Fatal(err)
			}
			for _, doc := range docs {
				lines = append(lines, fmt.Sprintf("doc %v", doc))
			}
			lines = append(lines, fmt.Sprintf("count %d", coll.Count()))
			out[coll.NS()] = lines
		}
	}
	return out
}

func sameData(t *testing.T, got, want *catalog.Catalog) {
	t.Helper()
	g, wnt := dump(t, got), dump(t, want)
	if reflect.DeepEqual(g, wnt) {
		return
	}
	var keys []string
	for k := range g {
		keys = append(keys, k)
	}
	for k := range wnt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !reflect.DeepEqual(g[k], wnt[k]) {
			t.Errorf("%s:\n got  %v\n want %v", k, g[k], wnt[k])
		}
	}
}

func top(c *catalog.Catalog) (bson.Timestamp, int64) { return c.Oplog().Top() }

var _ = oplog.OpInsert
