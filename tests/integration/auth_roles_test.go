package integration

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// rolesSetup starts --auth, creates root through the localhost exception
// and, as root, one user per entry of users (name -> roles).
func rolesSetup(t *testing.T, users map[string]bson.A) (*harness.Server, *mongo.Client) {
	t.Helper()
	s, anon := startServer(t, harness.WithArgs("--auth"))
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"root"}}}); err != nil {
		t.Fatal(err)
	}
	root, err := loginClient(t, s, "root", "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	for name, roles := range users {
		if _, err := runCmd(t, root, "admin", bson.D{{Key: "createUser", Value: name}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: roles}}); err != nil {
			t.Fatalf("createUser %s: %v", name, err)
		}
	}
	return s, root
}

func role(name, db string) bson.D { return bson.D{{Key: "role", Value: name}, {Key: "db", Value: db}} }

// TestAuthRolesEnforced: read, readWrite, userAdmin and root users get
// exactly their roles' privileges; a denied command is Unauthorized (13)
// with MongoDB's message and changes nothing.
func TestAuthRolesEnforced(t *testing.T) {
	s, root := rolesSetup(t, map[string]bson.A{
		"reader": {role("read", "db1")}, "writer": {role("readWrite", "db1")}, "ua": {role("userAdmin", "db1")},
	})
	if _, err := runCmd(t, root, "db1", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}}); err != nil {
		t.Fatalf("root insert: %v", err)
	}
	login := func(u string) *mongo.Client {
		c, err := loginClient(t, s, u, "p", "SCRAM-SHA-256")
		if err != nil {
			t.Fatalf("login %s: %v", u, err)
		}
		return c
	}
	reader, writer, ua := login("reader"), login("writer"), login("ua")
	ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 2}}}}}
	idx := bson.D{{Key: "createIndexes", Value: "c"}, {Key: "indexes", Value: bson.A{bson.D{{Key: "key", Value: bson.D{{Key: "x", Value: 1}}}, {Key: "name", Value: "x_1"}}}}}
	find := bson.D{{Key: "find", Value: "c"}}
	mk := bson.D{{Key: "createUser", Value: "new"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"read"}}}
	cases := []struct {
		who    string
		c      *mongo.Client
		db     string
		cmd    bson.D
		denied bool
	}{
		{"reader", reader, "db1", find, false},
		{"reader", reader, "db1", ins, true},
		{"reader", reader, "db1", idx, true},
		{"reader", reader, "db2", find, true},
		{"writer", writer, "db1", ins, false},
		{"writer", writer, "db2", ins, true},
		{"ua", ua, "db1", find, true},
		{"ua", ua, "db1", mk, false},
		{"root", root, "db2", ins, false},
		{"root", root, "db1", idx, false},
	}
	for _, tc := range cases {
		_, err := runCmd(t, tc.c, tc.db, tc.cmd)
		if tc.denied {
			want := "not authorized on " + tc.db + " to execute command { " + tc.cmd[0].Key
			if cmdCode(err) != 13 || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s on %s: %v, want 13 %q", tc.who, tc.cmd[0].Key, tc.db, err, want)
			}
		} else if err != nil {
			t.Errorf("%s %s on %s: %v", tc.who, tc.cmd[0].Key, tc.db, err)
		}
	}
	// The reader's denied insert of _id 2 changed nothing: writer's went in, and only one.
	n, err := root.Database("db1").Collection("c").CountDocuments(tctx(t, opTimeout), bson.D{})
	if err != nil || n != 2 {
		t.Fatalf("db1.c count %d %v, want 2", n, err)
	}
	if ix, err := root.Database("db1").Collection("c").Indexes().ListSpecifications(tctx(t, opTimeout)); err != nil || len(ix) != 2 {
		t.Fatalf("db1.c indexes %d %v, want _id and root's x_1", len(ix), err)
	}
}

// TestAuthUnknownRole: createUser with a role that does not exist is
// RoleNotFound (31) and creates nothing.
func TestAuthUnknownRole(t *testing.T) {
	_, root := rolesSetup(t, nil)
	bad := bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"nosuch"}}}
	if _, err := runCmd(t, root, "db1", bad); cmdCode(err) != 31 || !strings.Contains(err.Error(), "Could not find role: nosuch@db1") {
		t.Fatalf("unknown role: %v", err)
	}
	out, err := runCmd(t, root, "db1", bson.D{{Key: "usersInfo", Value: "u"}})
	if users, _ := out["users"].(bson.A); err != nil || len(users) != 0 {
		t.Fatalf("usersInfo after a refused createUser: %v %v", out, err)
	}
}

// TestAuthGrantRevokeRoles: grantRolesToUser gives the role's privileges to
// new logins and to connections already logged in, revokeRolesFromUser
// takes them away; unknown roles are 31
// and unknown users UserNotFound (11).
func TestAuthGrantRevokeRoles(t *testing.T) {
	s, root := rolesSetup(t, map[string]bson.A{"u": {role("read", "db1")}})
	ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}}}
	// kept logged in across the changes: it must see them (usersChanged)
	kept, err := loginClient(t, s, "u", "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	try := func(want int32) {
		t.Helper()
		fresh, err := loginClient(t, s, "u", "p", "SCRAM-SHA-256")
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []*mongo.Client{fresh, kept} {
			if _, err := runCmd(t, c, "db1", ins); (want == 0 && err != nil) || (want != 0 && cmdCode(err) != want) {
				t.Fatalf("insert as u (client %d, 1 = logged in before): %v, want code %d", i, err, want)
			}
		}
	}
	try(13)
	grant := bson.D{{Key: "grantRolesToUser", Value: "u"}, {Key: "roles", Value: bson.A{role("readWrite", "db1")}}}
	if _, err := runCmd(t, root, "admin", grant); err != nil {
		t.Fatalf("grantRolesToUser: %v", err)
	}
	try(0)
	revoke := bson.D{{Key: "revokeRolesFromUser", Value: "u"}, {Key: "roles", Value: bson.A{role("readWrite", "db1")}}}
	if _, err := runCmd(t, root, "admin", revoke); err != nil {
		t.Fatalf("revokeRolesFromUser: %v", err)
	}
	try(13)
	bad := bson.D{{Key: "grantRolesToUser", Value: "u"}, {Key: "roles", Value: bson.A{"nosuch"}}}
	if _, err := runCmd(t, root, "admin", bad); cmdCode(err) != 31 {
		t.Fatalf("grant unknown role: %v, want 31", err)
	}
	nouser := bson.D{{Key: "grantRolesToUser", Value: "ghost"}, {Key: "roles", Value: bson.A{"read"}}}
	if _, err := runCmd(t, root, "admin", nouser); cmdCode(err) != 11 {
		t.Fatalf("grant to unknown user: %v, want 11", err)
	}
}
