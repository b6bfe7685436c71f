package catalog

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestWatchSeesEveryChange checks that a watch's version moves on each
// write and DDL of its namespace (through Insert and a Writer batch, as the
// applier writes) and not on another namespace's writes.
func TestWatchSeesEveryChange(t *testing.T) {
	c := openMem(t)
	users := mustColl(t, c, "admin", "system.users")
	other := mustColl(t, c, "admin", "other")
	w := c.Watch("admin.system.users")
	if c.Watch("admin.system.users") != w {
		t.Fatal("Watch returned a second watch for the same namespace")
	}
	v := w.Version()
	changed := func(what string, want bool) {
		t.Helper()
		if got := w.Version() != v; got != want {
			t.Fatalf("%s: version changed = %v, want %v", what, got, want)
		}
		v = w.Version()
	}
	mustInsert(t, c, other, d("_id", 1))
	changed("insert into another collection", false)
	mustInsert(t, c, users, d("_id", "admin.a"))
	changed("insert", true)
	if _, err := c.Apply(func(wr *Writer) error {
		wr.Unlogged() // as initial sync's cloning writes
		return wr.PutDocument(users, d("_id", "admin.b"), mustRaw(t, d("_id", "admin.b")))
	}); err != nil {
		t.Fatal(err)
	}
	changed("an unlogged Writer.PutDocument", true)
	if _, err := c.DeleteDocuments(users, []any{"admin.a"}); err != nil {
		t.Fatal(err)
	}
	changed("DeleteDocuments", true)
	if err := c.DropCollection("admin", "system.users"); err != nil {
		t.Fatal(err)
	}
	changed("drop", true)
	users = mustColl(t, c, "admin", "system.users")
	changed("create", true)
	mustInsert(t, c, users, d("_id", "admin.c"))
	changed("insert after re-create", true)
	if err := c.RenameCollection("admin", "other", "admin", "system.users", true); err != nil {
		t.Fatal(err)
	}
	changed("rename onto", true)
}

func mustRaw(t *testing.T, doc bson.D) []byte {
	t.Helper()
	raw, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
