package privilege

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func cmd(kv ...any) bson.D {
	var d bson.D
	for i := 0; i+1 < len(kv); i += 2 {
		d = append(d, bson.E{Key: kv[i].(string), Value: kv[i+1]})
	}
	return d
}

// TestAllows: each built-in role against the requests it must and must not
// be allowed, through Needs as the dispatcher calls it.
func TestAllows(t *testing.T) {
	out := bson.A{bson.D{{Key: "$match", Value: bson.D{}}}, bson.D{{Key: "$out", Value: "o"}}}
	merge := bson.A{bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: bson.D{{Key: "db", Value: "db2"}, {Key: "coll", Value: "m"}}}}}}}
	cases := []struct {
		role Role
		name string
		db   string
		cmd  bson.D
		want bool
	}{
		{Role{"read", "db1"}, "find", "db1", cmd("find", "c"), true},
		{Role{"read", "db1"}, "find", "db2", cmd("find", "c"), false},
		{Role{"read", "db1"}, "find", "db1", cmd("find", "system.users"), false},
		{Role{"read", "db1"}, "insert", "db1", cmd("insert", "c"), false},
		{Role{"read", "db1"}, "find", "db1", cmd("find", "system.js"), true},
		{Role{"read", "db1"}, "insert", "db1", cmd("insert", "system.js"), false},
		{Role{"readWrite", "db1"}, "insert", "db1", cmd("insert", "system.js"), true},
		{Role{"dbAdmin", "db1"}, "find", "db1", cmd("find", "system.profile"), true},
		{Role{"dbAdmin", "db1"}, "find", "db1", cmd("find", "system.js"), false},
		{Role{"readWrite", "db1"}, "find", "db1", cmd("find", "system.profile"), false},
		{Role{"read", "db1"}, "createIndexes", "db1", cmd("createIndexes", "c"), false},
		{Role{"read", "db1"}, "getMore", "db1", cmd("getMore", int64(1), "collection", "c"), true},
		{Role{"read", "db1"}, "aggregate", "db1", cmd("aggregate", "c", "pipeline", out), false},
		{Role{"readWrite", "db1"}, "aggregate", "db1", cmd("aggregate", "c", "pipeline", out), true},
		{Role{"readWrite", "db1"}, "aggregate", "db1", cmd("aggregate", "c", "pipeline", merge), false},
		{Role{"readWrite", "db1"}, "insert", "db1", cmd("insert", "c"), true},
		{Role{"readWrite", "db1"}, "dropDatabase", "db1", cmd("dropDatabase", 1), false},
		{Role{"readWrite", "db1"}, "findAndModify", "db1", cmd("findAndModify", "c", "remove", true), true},
		{Role{"read", "db1"}, "findAndModify", "db1", cmd("findAndModify", "c", "remove", true), false},
		{Role{"read", "db1"}, "explain", "db1", cmd("explain", cmd("find", "c")), true},
		{Role{"read", "db1"}, "explain", "db1", cmd("explain", cmd("delete", "c")), false},
		{Role{"dbAdmin", "db1"}, "dropDatabase", "db1", cmd("dropDatabase", 1), true},
		{Role{"dbAdmin", "db1"}, "find", "db1", cmd("find", "c"), false},
		{Role{"userAdmin", "db1"}, "createUser", "db1", cmd("createUser", "u"), true},
		{Role{"userAdmin", "db1"}, "find", "db1", cmd("find", "c"), false},
		{Role{"userAdmin", "db1"}, "updateUser", "db1", cmd("updateUser", "u", "roles", bson.A{}), false}, // revokeRole on every database
		{Role{"userAdminAnyDatabase", "admin"}, "updateUser", "db1", cmd("updateUser", "u", "roles", bson.A{}), true},
		{Role{"dbOwner", "db1"}, "usersInfo", "db1", cmd("usersInfo", 1), true},
		{Role{"readAnyDatabase", "admin"}, "find", "db9", cmd("find", "c"), true},
		{Role{"readAnyDatabase", "admin"}, "listDatabases", "admin", cmd("listDatabases", 1), true},
		{Role{"readAnyDatabase", "admin"}, "insert", "db9", cmd("insert", "c"), false},
		{Role{"readAnyDatabase", "db1"}, "find", "db1", cmd("find", "c"), false}, // admin-only role
		{Role{"clusterMonitor", "admin"}, "serverStatus", "admin", cmd("serverStatus", 1), true},
		{Role{"clusterMonitor", "admin"}, "shutdown", "admin", cmd("shutdown", 1), false},
		{Role{"clusterAdmin", "admin"}, "shutdown", "admin", cmd("shutdown", 1), true},
		{Role{"clusterManager", "admin"}, "replSetReconfig", "admin", cmd("replSetReconfig", bson.D{}), true},
		{Role{"root", "admin"}, "find", "admin", cmd("find", "system.users"), true},
		{Role{"root", "admin"}, "shutdown", "admin", cmd("shutdown", 1), true},
		{Role{"root", "admin"}, "_migrateClone", "admin", cmd("_migrateClone", 1), false},
		{Role{"read", "db1"}, "ping", "db1", cmd("ping", 1), true},
		{Role{"read", "db1"}, "noSuchCommand", "db1", cmd("noSuchCommand", 1), false},
		{Role{"nope", "db1"}, "find", "db1", cmd("find", "c"), false},
	}
	for _, tc := range cases {
		needs, ok := Needs(tc.name, tc.db, tc.cmd)
		got := ok && Resolve([]Role{tc.role}).Allows(needs)
		if got != tc.want {
			t.Errorf("%s@%s %s on %s %v: allowed %v, want %v", tc.role.Name, tc.role.DB, tc.name, tc.db, tc.cmd, got, tc.want)
		}
	}
}

// TestExists: the built-in roles are known, others are not.
func TestExists(t *testing.T) {
	for _, r := range []string{"read", "readWrite", "dbAdmin", "dbOwner", "userAdmin", "clusterMonitor", "clusterManager",
		"clusterAdmin", "hostManager", "readAnyDatabase", "readWriteAnyDatabase", "userAdminAnyDatabase", "dbAdminAnyDatabase",
		"backup", "restore", "root"} {
		if !Exists(Role{r, "admin"}) {
			t.Errorf("role %s@admin unknown", r)
		}
	}
	if Exists(Role{"root", "db1"}) || Exists(Role{"x", "admin"}) {
		t.Error("root@db1 or x@admin known")
	}
}

// BenchmarkCheck is the per-command cost under --auth: Needs and Allows
// for a find with a readWrite user and a clusterMonitor one.
func BenchmarkCheck(b *testing.B) {
	set := Resolve([]Role{{"readWrite", "db1"}, {"clusterMonitor", "admin"}})
	c := cmd("find", "c", "filter", bson.D{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		needs, ok := Needs("find", "db1", c)
		if !ok || !set.Allows(needs) {
			b.Fatal("denied")
		}
	}
}
