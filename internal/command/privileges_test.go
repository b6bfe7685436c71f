package command

import (
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/storage"
)

// TestEveryCommandHasPrivileges: a registered command without an entry in
// package privilege would be refused to every user under --auth.
func TestEveryCommandHasPrivileges(t *testing.T) {
	for _, c := range commands {
		if !privilege.Known(c.Name) {
			t.Errorf("command %s has no privilege mapping (internal/auth/privilege/commands.go)", c.Name)
		}
	}
}

// authTestDispatcher is a dispatcher under --auth over an in-memory
// catalog, with one connection logged in as admin.u holding roles.
func authTestDispatcher(tb testing.TB, roles bson.A) (*Dispatcher, *Conn) {
	tb.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cat.Close() })
	d := NewDispatcher(exec.New(cat, slog.Default()), Info{}, slog.Default())
	d.SetAuth(true)
	user := bson.D{{Key: "_id", Value: "admin.u"}, {Key: "user", Value: "u"}, {Key: "db", Value: "admin"}, {Key: "roles", Value: roles}}
	if err := writeErr(d.eng.Insert(usersDB, usersColl, []bson.D{user}, true, nil)); err != nil {
		tb.Fatal(err)
	}
	conn := NewConn(1, "127.0.0.1:1", "127.0.0.1:2")
	gen := d.authGen()
	conn.auth.users = []authUser{{user: "u", db: "admin", privs: d.userPrivileges("admin", "u"), gen: gen}}
	return d, conn
}

func checkFind(d *Dispatcher, conn *Conn, coll string) error {
	cmd := bson.D{{Key: "find", Value: coll}}
	return d.checkPrivileges(registry["find"], &Ctx{D: d, Conn: conn, DB: "db1", Name: "find", Cmd: cmd, Req: &Request{}})
}

// TestPrivilegesFollowStoredRoles: writes to admin.system.roles and
// admin.system.users made below the commands (as replication applies
// them, without usersChanged) change what a logged-in connection may do
// at its next check.
func TestPrivilegesFollowStoredRoles(t *testing.T) {
	d, conn := authTestDispatcher(t, bson.A{bson.D{{Key: "role", Value: "r"}, {Key: "db", Value: "db1"}}})
	if err := checkFind(d, conn, "c"); err == nil {
		t.Fatal("find allowed before the role exists")
	}
	privs := func(coll string) bson.A {
		return bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "db1"}, {Key: "collection", Value: coll}}}, {Key: "actions", Value: bson.A{"find"}}}}
	}
	role := bson.D{{Key: "_id", Value: "db1.r"}, {Key: "role", Value: "r"}, {Key: "db", Value: "db1"}, {Key: "privileges", Value: privs("c")}, {Key: "roles", Value: bson.A{}}}
	if err := writeErr(d.eng.Insert(usersDB, rolesColl, []bson.D{role}, true, nil)); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		coll, ns string
		u        bson.D
		c, d     bool // find on db1.c, db1.d allowed after the write
	}{
		{"", "", nil, true, false},
		{rolesColl, "db1.r", bson.D{{Key: "$set", Value: bson.D{{Key: "privileges", Value: privs("d")}}}}, false, true},
		{rolesColl, "db1.r", bson.D{{Key: "$set", Value: bson.D{{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "db1"}}}}}}}, true, true},
		{usersColl, "admin.u", bson.D{{Key: "$set", Value: bson.D{{Key: "roles", Value: bson.A{}}}}}, false, false},
	}
	for i, st := range steps {
		if st.u != nil {
			stmt := exec.UpdateStmt{Q: bson.D{{Key: "_id", Value: st.ns}}, U: st.u}
			if res := d.eng.Update(usersDB, st.coll, []exec.UpdateStmt{stmt}, true, nil, nil); res.N != 1 {
				t.Fatalf("step %d: update matched %d", i, res.N)
			}
		}
		if got := checkFind(d, conn, "c") == nil; got != st.c {
			t.Errorf("step %d: find c allowed %v, want %v", i, got, st.c)
		}
		if got := checkFind(d, conn, "d") == nil; got != st.d {
			t.Errorf("step %d: find d allowed %v, want %v", i, got, st.d)
		}
	}
}

// BenchmarkCheckPrivileges: the per-command check of a logged-in
// connection whose privileges are current (the generation check included).
func BenchmarkCheckPrivileges(b *testing.B) {
	d, conn := authTestDispatcher(b, bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "db1"}}})
	ctx := &Ctx{D: d, Conn: conn, DB: "db1", Name: "find", Cmd: bson.D{{Key: "find", Value: "c"}}, Req: &Request{}}
	c := registry["find"]
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := d.checkPrivileges(c, ctx); err != nil {
			b.Fatal(err)
		}
	}
}
