package catalog

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/storage"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata golden files")

// TestDDLGolden pins what the primary's DDL writes, step by step: the
// error it returns (text and code), the oplog entries it appends (every
// field but ts, t and wall; UUIDs named in order of appearance), how many
// storage commits it makes, and the persisted catalog entries afterwards;
// and that LastWrite covers every entry it made visible.
// Run with -update to rewrite testdata/ddl.golden.
func TestDDLGolden(t *testing.T) {
	c := openMem(t)
	g := &ddlGolden{t: t, c: c, uuids: map[string]string{}}
	coll := func(db, name string) *Collection {
		if x := c.Collection(db, name); x != nil {
			return x
		}
		t.Fatalf("no %s.%s", db, name)
		return nil
	}
	g.step("create app.a", func() error { _, err := c.CreateCollection("app", "a", nil); return err })
	g.step("create app.b with options", func() error {
		_, err := c.CreateCollection("app", "b", d("collation", d("locale", "simple"), "comment", "x"))
		return err
	})
	g.step("create app.a again", func() error { _, err := c.CreateCollection("app", "a", nil); return err })
	g.step("create bad name", func() error { _, err := c.CreateCollection("app", "a$b", nil); return err })
	g.step("create local.x", func() error { _, err := c.CreateCollection(LocalDB, "x", nil); return err })
	g.step("ensure app.implicit", func() error { _, _, err := c.EnsureCollection("app", "implicit"); return err })
	g.step("ensure app.implicit again", func() error { _, _, err := c.EnsureCollection("app", "implicit"); return err })
	g.step("ensure local collection", func() error { _, err := c.EnsureLocalCollection("replset.test"); return err })
	g.step("insert", func() error {
		for i := 1; i <= 3; i++ {
			if _, err := c.Insert(coll("app", "a"), d("_id", i, "x", i%2, "y", bson.A{i, i + 10})); err != nil {
				return err
			}
		}
		return nil
	})
	g.step("create indexes", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{spec("x_1", d("x", 1)), spec("y_1", d("y", 1), "unique", true),
			spec("x_1", d("x", 1))})
		return err
	})
	g.step("create identical index", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{spec("x_1", d("x", 1))})
		return err
	})
	g.step("create conflicting key", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{spec("x_1", d("z", 1))})
		return err
	})
	g.step("create conflicting options", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{spec("x_1", d("x", 1), "sparse", true)})
		return err
	})
	g.step("create invalid spec", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{d("name", "nokey")})
		return err
	})
	g.step("unique build over duplicates", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{spec("z_1", d("z", 1)), spec("x_u", d("x", 1, "_id", -1), "unique", true),
			spec("x_u2", d("x", -1), "unique", true)})
		return err
	})
	g.step("create indexes on empty", func() error {
		_, _, err := c.CreateIndexes(coll("app", "b"), []bson.D{spec("p_1", d("p", 1), "expireAfterSeconds", int32(5))})
		return err
	})
	g.step("drop missing index", func() error { return c.DropIndexes(coll("app", "a"), []string{"x_1", "nope"}) })
	g.step("drop _id_", func() error { return c.DropIndexes(coll("app", "a"), []string{"_id_"}) })
	g.step("drop x_1", func() error { return c.DropIndexes(coll("app", "a"), []string{"x_1"}) })
	g.step("create two more", func() error {
		_, _, err := c.CreateIndexes(coll("app", "a"), []bson.D{spec("x_1", d("x", 1)), spec("q_1", d("q", 1))})
		return err
	})
	g.step("drop *", func() error { return c.DropIndexes(coll("app", "a"), []string{"*"}) })
	g.step("drop * again", func() error { return c.DropIndexes(coll("app", "a"), []string{"*"}) })
	g.step("drop none", func() error { return c.DropIndexes(coll("app", "a"), nil) })
	g.step("rename missing", func() error { return c.RenameCollection("app", "nope", "app", "c", false) })
	g.step("rename to itself", func() error { return c.RenameCollection("app", "a", "app", "a", false) })
	g.step("rename bad target", func() error { return c.RenameCollection("app", "a", "app", "", false) })
	g.step("rename b to c", func() error { return c.RenameCollection("app", "b", "app", "c", false) })
	g.step("rename onto existing", func() error { return c.RenameCollection("app", "c", "app", "a", false) })
	g.step("rename dropTarget", func() error { return c.RenameCollection("app", "c", "app", "a", true) })
	g.step("rename across dbs", func() error { return c.RenameCollection("app", "a", "other", "a2", true) })
	g.step("create other.b", func() error { _, err := c.CreateCollection("other", "b", nil); return err })
	g.step("drop missing collection", func() error { return c.DropCollection("app", "nope") })
	g.step("drop app.implicit", func() error { return c.DropCollection("app", "implicit") })
	g.step("drop database other", func() error { return c.DropDatabase("other") })
	g.step("drop database none", func() error { return c.DropDatabase("none") })
	g.step("drop local.x", func() error { return c.DropCollection(LocalDB, "x") })
	g.step("noop", func() error { _, err := c.WriteNoop(d("msg", "new primary")); return err })
	mustVerify(t, c)
	g.check(filepath.Join("testdata", "ddl.golden"))
}

type ddlGolden struct {
	t     *testing.T
	c     *Catalog
	uuids map[string]string // UUID bytes -> label
	out   strings.Builder
	after bson.Timestamp
}

// step runs f and records its error, oplog entries, commits and the
// catalog entries.
func (g *ddlGolden) step(name string, f func() error) {
	g.t.Helper()
	seq := g.c.Engine().Committed()
	err := f()
	fmt.Fprintf(&g.out, "== %s\n", name)
	if err != nil {
		fmt.Fprintf(&g.out, "error: %v\n", err)
	}
	fmt.Fprintf(&g.out, "commits: %d\n", g.c.Engine().Committed()-seq)
	// The write concern of DDL waits on LastWrite: it covers what returned.
	if top, _ := g.c.Oplog().Top(); g.c.LastWrite().TS != top {
		g.t.Fatalf("%s: LastWrite %v is behind the oplog top %v", name, g.c.LastWrite().TS, top)
	}
	raws, rerr := g.c.Oplog().ReadRaw(g.after, false, 0)
	if rerr != nil {
		g.t.Fatal(rerr)
	}
	for _, raw := range raws {
		doc := g.render(raw)
		t, i := bson.Raw(raw).Lookup("ts").Timestamp()
		g.after = bson.Timestamp{T: t, I: i}
		fmt.Fprintf(&g.out, "oplog: %s\n", doc)
	}
	lo, hi := storage.CatalogBounds()
	it, ierr := g.c.Engine().NewIter(lo, hi)
	if ierr != nil {
		g.t.Fatal(ierr)
	}
	defer it.Close()
	for ok := it.First(); ok; ok = it.Next() {
		if len(it.Key()) != 5 {
			fmt.Fprintf(&g.out, "catalog next-id: %x\n", it.Value())
			continue
		}
		fmt.Fprintf(&g.out, "catalog %x: %s\n", it.Key()[1:], g.render(append([]byte(nil), it.Value()...)))
	}
}

// render returns raw as extended JSON without ts, t and wall, with UUIDs
// replaced by labels.
func (g *ddlGolden) render(raw []byte) string {
	var doc bson.D
	if err := bson.Unmarshal(raw, &doc); err != nil {
		g.t.Fatal(err)
	}
	var out bson.D
	for _, e := range doc {
		switch e.Key {
		case "ts", "t", "wall":
			continue
		}
		out = append(out, bson.E{Key: e.Key, Value: g.relabel(e.Value)})
	}
	js, err := bson.MarshalExtJSON(out, true, false)
	if err != nil {
		g.t.Fatal(err)
	}
	return string(js)
}

func (g *ddlGolden) relabel(v any) any {
	switch x := v.(type) {
	case bson.Binary:
		if x.Subtype != bson.TypeBinaryUUID {
			return x
		}
		l, ok := g.uuids[string(x.Data)]
		if !ok {
			l = fmt.Sprintf("uuid#%d", len(g.uuids)+1)
			g.uuids[string(x.Data)] = l
		}
		return l
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: g.relabel(e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = g.relabel(e)
		}
		return out
	}
	return v
}

func (g *ddlGolden) check(path string) {
	g.t.Helper()
	got := g.out.String()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			g.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			g.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		g.t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var a, b string
			if i < len(gl) {
				a = gl[i]
			}
			if i < len(wl) {
				b = wl[i]
			}
			if a != b {
				g.t.Fatalf("%s differs at line %d:\n got: %s\nwant: %s", path, i+1, a, b)
			}
		}
	}
}
