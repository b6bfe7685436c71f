package applier

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/update"
)

// mustUpdate applies the oplog-form update o to coll's document id, as the
// primary's write path does.
func mustUpdate(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, id any, o bson.D) {
	t.Helper()
	raw, ok, err := live(c, coll).FindByID(id)
	if err != nil || !ok {
		t.Fatalf("find %v: %v %v", id, ok, err)
	}
	old, err := bsonx.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	newDoc, err := update.ApplyOplog(old, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Update(coll, old, newDoc, o); err != nil {
		t.Fatalf("update %v: %v", id, err)
	}
}

func mustDelete(t testing.TB, c *catalog.Catalog, coll *catalog.Collection, id any) {
	t.Helper()
	raw, ok, err := live(c, coll).FindByID(id)
	if err != nil || !ok {
		t.Fatalf("find %v: %v %v", id, ok, err)
	}
	doc, _ := bsonx.Decode(raw)
	if _, err := c.Delete(coll, doc); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// primaryWorkload runs a mix of every logged write and DDL on c.
func primaryWorkload(t testing.TB, c *catalog.Catalog) {
	t.Helper()
	c.Oplog().SetTerm(1)
	a := mustColl(t, c, "app", "a")
	mustIndex(t, c, a, spec("x_1", d("x", 1)), spec("tags_1", d("tags", 1)))
	mustInsert(t, c, a, d("_id", 1, "x", 1, "tags", bson.A{"p", "q"}), d("_id", 2, "x", 2),
		d("_id", 3, "x", 3, "sub", d("k", 1)), d("_id", 4, "u", 4))
	mustUpdate(t, c, a, 1, d("$set", d("x", 10, "sub.k", 5)))
	mustUpdate(t, c, a, 3, d("$unset", d("sub", true)))
	mustUpdate(t, c, a, 2, d("_id", 2, "y", "replaced"))
	mustDelete(t, c, a, 2)
	mustIndex(t, c, a, spec("u_1", d("u", 1), "unique", true, "sparse", true),
		spec("ttl", d("at", 1), "expireAfterSeconds", int32(3600)),
		spec("part", d("x", -1), "partialFilterExpression", d("x", d("$gt", 5))))
	mustInsert(t, c, a, d("_id", 5, "u", 5, "at", bson.NewDateTimeFromTime(time.Unix(100, 0))))
	mustUpdate(t, c, a, 5, d("$set", d("tags", bson.A{"r", "s", "t"})))

	b, _, err := c.EnsureCollection("app", "b")
	must(t, err)
	mustInsert(t, c, b, d("_id", "b1", "v", 1))
	must(t, c.RenameCollection("app", "b", "app", "b2", false))
	mustInsert(t, c, b, d("_id", "b2", "v", 2))
	must(t, c.RenameCollection("app", "b2", "other", "moved", false))
	mustInsert(t, c, b, d("_id", "b3", "v", 3))

	cc := mustColl(t, c, "app", "c")
	mustInsert(t, c, cc, d("_id", 1, "from", "c"))
	dd := mustColl(t, c, "app", "d")
	mustIndex(t, c, dd, spec("z_1", d("z", 1)))
	mustInsert(t, c, dd, d("_id", 1, "from", "d", "z", 1))
	must(t, c.RenameCollection("app", "c", "app", "d", true))

	must(t, c.DropIndexes(a, []string{"tags_1"}))
	e := mustColl(t, c, "app", "e")
	mustInsert(t, c, e, d("_id", 1))
	must(t, c.DropCollection("app", "e"))
	g1, g2 := mustColl(t, c, "gone", "g1"), mustColl(t, c, "gone", "g2")
	mustInsert(t, c, g1, d("_id", 1))
	mustInsert(t, c, g2, d("_id", 1))
	must(t, c.DropDatabase("gone"))

	c.Oplog().SetTerm(2)
	_, err = c.WriteNoop(d("msg", "new primary"))
	must(t, err)
	mustColl(t, c, "app", "e") // same name, new UUID
	e2 := mustColl(t, c, "app", "e2")
	mustInsert(t, c, e2, d("_id", 1, "arr", bson.A{d("k", 1), d("k", 2)}))
	mustIndex(t, c, e2, spec("arr.k_1", d("arr.k", 1)))
	mustInsert(t, c, mustColl(t, c, catalog.LocalDB, "replset.election"), d("_id", "vote")) // not logged
}
