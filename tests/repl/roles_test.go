package repl

import (
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRolesReplicatedInvalidation: under member auth, a user logged in on
// a secondary keeps one open connection while the primary revokes a
// privilege from its user-defined role, grants it back, and drops the
// role: each replicated change decides the secondary's next answer on
// that same connection, without a new login (the secondary's catalog
// watches of admin.system.roles and admin.system.users, not the primary's
// process, invalidate its privileges).
func TestRolesReplicatedInvalidation(t *testing.T) {
	key, _ := harness.WriteKeyFile(t, "")
	const set = "rolesrs"
	ms := startKeyed(t, set, key, key)
	members := bson.A{
		bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: ms[0].host}, {Key: "priority", Value: 1.0}},
		bson.D{{Key: "_id", Value: 1}, {Key: "host", Value: ms[1].host}, {Key: "priority", Value: 0.0}},
	}
	anon := connect(t, ms[0].host, "", "", "")
	if _, err := runAdmin(anon, bson.D{{Key: "replSetInitiate", Value: bson.D{{Key: "_id", Value: set}, {Key: "members", Value: members}}}}); err != nil {
		t.Fatalf("replSetInitiate: %v", err)
	}
	p := keyedPrimary(t, ms, 30*time.Second)
	maj := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: 20000}}}
	must := func(cl *mongo.Client, db string, cmd bson.D) {
		t.Helper()
		ctx, cancel := ctxT(20 * time.Second)
		defer cancel()
		if err := cl.Database(db).RunCommand(ctx, append(cmd, maj)).Err(); err != nil {
			t.Fatalf("%s: %v", cmd[0].Key, err)
		}
	}
	must(connect(t, p.host, "", "", ""), "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "rootpw"}, {Key: "roles", Value: bson.A{"root"}}})
	root := connect(t, p.host, "root", "rootpw", "admin")
	findC := bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "db1"}, {Key: "collection", Value: "c"}}}, {Key: "actions", Value: bson.A{"find"}}}}
	must(root, "db1", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}})
	must(root, "db1", bson.D{{Key: "createRole", Value: "findC"}, {Key: "privileges", Value: findC}, {Key: "roles", Value: bson.A{}}})
	must(root, "admin", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "findC"}, {Key: "db", Value: "db1"}}}}})

	var sec keyedMember
	for _, m := range ms {
		if m.host != p.host {
			sec = m
		}
	}
	u := connect(t, sec.host, "u", "p", "admin")
	coll := u.Database("db1").Collection("c", options.Collection().SetReadPreference(readpref.SecondaryPreferred()))
	read := func() error {
		ctx, cancel := ctxT(5 * time.Second)
		defer cancel()
		return coll.FindOne(ctx, bson.D{}).Err()
	}
	allowed := func() error { return read() }
	refused := func() error {
		if err := read(); codeOf(err) != 13 {
			return fmt.Errorf("find on the secondary not refused with 13: %v", err)
		}
		return nil
	}
	eventually(t, 10*time.Second, "u reads on the secondary", allowed)
	must(root, "db1", bson.D{{Key: "revokePrivilegesFromRole", Value: "findC"}, {Key: "privileges", Value: findC}})
	eventually(t, 10*time.Second, "revoke seen on the secondary's open connection", refused)
	must(root, "db1", bson.D{{Key: "grantPrivilegesToRole", Value: "findC"}, {Key: "privileges", Value: findC}})
	eventually(t, 10*time.Second, "grant seen on the secondary's open connection", allowed)
	must(root, "db1", bson.D{{Key: "dropRole", Value: "findC"}})
	eventually(t, 10*time.Second, "dropRole seen on the secondary's open connection", refused)
}
