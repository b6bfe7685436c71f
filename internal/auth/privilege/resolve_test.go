package privilege

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// roleGraph is a lookup over a fixed set of user-defined roles.
func roleGraph(docs ...*RoleDoc) Lookup {
	m := map[Role]*RoleDoc{}
	for _, d := range docs {
		m[d.Role] = d
	}
	return func(r Role) (*RoleDoc, bool) { d, ok := m[r]; return d, ok }
}

func findOn(db, coll string) Grant {
	return Grant{Resource{DB: db, Coll: coll}, []string{"find"}}
}

// TestResolveRoles: user-defined roles grant their privileges and their
// inherited roles' (built-in or not), transitively; cycles end.
func TestResolveRoles(t *testing.T) {
	lookup := roleGraph(
		&RoleDoc{Role: Role{"a", "db1"}, Privileges: []Grant{findOn("db1", "c")}},
		&RoleDoc{Role: Role{"b", "db1"}, Roles: []Role{{"a", "db1"}, {"readWrite", "db2"}}},
		&RoleDoc{Role: Role{"x", "db1"}, Roles: []Role{{"y", "db1"}}, Privileges: []Grant{{Resource{DB: "db1", Coll: "x"}, []string{"insert", "top"}}}},
		&RoleDoc{Role: Role{"y", "db1"}, Roles: []Role{{"x", "db1"}}},
	)
	cases := []struct {
		roles []Role
		need  Need
		want  bool
	}{
		{[]Role{{"a", "db1"}}, Need{DB: "db1", Coll: "c", Actions: Find}, true},
		{[]Role{{"a", "db1"}}, Need{DB: "db1", Coll: "d", Actions: Find}, false},
		{[]Role{{"a", "db1"}}, Need{DB: "db1", Coll: "c", Actions: Insert}, false},
		{[]Role{{"b", "db1"}}, Need{DB: "db1", Coll: "c", Actions: Find}, true},
		{[]Role{{"b", "db1"}}, Need{DB: "db2", Coll: "z", Actions: Insert}, true},
		{[]Role{{"y", "db1"}}, Need{DB: "db1", Coll: "x", Actions: Insert}, true},
		{[]Role{{"y", "db1"}}, Need{DB: "db1", Coll: "x", Actions: Find}, false},
		{[]Role{{"gone", "db1"}}, Need{DB: "db1", Coll: "c", Actions: Find}, false},
	}
	for _, tc := range cases {
		if got := ResolveRoles(tc.roles, lookup).Allows([]Need{tc.need}); got != tc.want {
			t.Errorf("%v %+v: got %v, want %v", tc.roles, tc.need, got, tc.want)
		}
	}
	all := ResolveAll([]Role{{"b", "db1"}}, lookup)
	if len(all.Roles) != 3 || len(all.Grants) < 2 {
		t.Errorf("ResolveAll(b) = %+v", all)
	}
}

func TestCheckGrantable(t *testing.T) {
	lookup := roleGraph(
		&RoleDoc{Role: Role{"a", "db1"}},
		&RoleDoc{Role: Role{"b", "db1"}, Roles: []Role{{"a", "db1"}}},
	)
	cases := []struct {
		role   Role
		grants []Grant
		roles  []Role
		ok     bool
	}{
		{Role{"a", "db1"}, []Grant{findOn("db1", "")}, []Role{{"read", "db1"}}, true},
		{Role{"a", "db1"}, nil, []Role{{"a", "db1"}}, false},
		{Role{"a", "db1"}, nil, []Role{{"b", "db1"}}, false}, // b inherits a
		{Role{"a", "db1"}, nil, []Role{{"read", "db2"}}, false},
		{Role{"a", "db1"}, []Grant{findOn("db2", "c")}, nil, false},
		{Role{"a", "db1"}, []Grant{{Resource{Cluster: true}, []string{"serverStatus"}}}, nil, false},
		{Role{"a", "admin"}, []Grant{findOn("", ""), {Resource{Cluster: true}, []string{"serverStatus"}}}, []Role{{"read", "db2"}}, true},
	}
	for _, tc := range cases {
		err := CheckGrantable(tc.role, tc.grants, tc.roles, lookup)
		if (err == nil) != tc.ok || (err != nil && mongoerr.From(err).Code != mongoerr.InvalidRoleModification) {
			t.Errorf("%v %v %v: %v", tc.role, tc.grants, tc.roles, err)
		}
	}
}

func TestParseGrants(t *testing.T) {
	priv := func(res bson.D, acts ...any) bson.D {
		return bson.D{{Key: "resource", Value: res}, {Key: "actions", Value: bson.A(acts)}}
	}
	dbColl := bson.D{{Key: "db", Value: "test"}, {Key: "collection", Value: ""}}
	bad := []any{
		"find",
		priv(dbColl, "fakeAction"),
		priv(bson.D{{Key: "db", Value: bson.A{"test"}}, {Key: "collection", Value: ""}}, "find"),
		bson.D{{Key: "resource", Value: dbColl}},
		bson.D{{Key: "actions", Value: bson.A{"find"}}},
		priv(dbColl),
		priv(bson.D{{Key: "db", Value: "test"}}, "find"),
		priv(bson.D{{Key: "collection", Value: "test"}}, "find"),
		priv(bson.D{}, "find"),
		priv(append(dbColl, bson.E{Key: "cluster", Value: true}), "find"),
		priv(bson.D{{Key: "cluster", Value: false}}, "find"),
		priv(bson.D{{Key: "db", Value: "test"}, {Key: "collection", Value: "$cmd"}}, "find"),
	}
	for _, b := range bad {
		if _, err := ParseGrants(bson.A{b}); err == nil || mongoerr.From(err).Code != mongoerr.BadValue {
			t.Errorf("%v: %v, want BadValue", b, err)
		}
	}
	gs, err := ParseGrants(bson.A{priv(dbColl, "find", "top"), priv(dbColl, "insert", "find"), priv(bson.D{{Key: "cluster", Value: true}}, "serverStatus")})
	if err != nil || len(gs) != 2 || len(gs[0].Actions) != 3 || gs[0].Privilege().Actions != Find|Insert {
		t.Fatalf("merged grants %+v, %v", gs, err)
	}
	if left := RemoveGrants(gs, []Grant{{gs[0].Resource, []string{"find", "insert", "top"}}}); len(left) != 1 || !left[0].Resource.Cluster {
		t.Errorf("RemoveGrants left %+v", left)
	}
}

func TestSelfNeeds(t *testing.T) {
	if u, needs, ok := SelfNeeds("updateUser", "db1", cmd("updateUser", "u", "pwd", "x")); !ok || u != "u" || needs[0].Actions != ChangeOwnPassword {
		t.Errorf("updateUser pwd: %v %v %v", u, needs, ok)
	}
	if _, _, ok := SelfNeeds("updateUser", "db1", cmd("updateUser", "u", "roles", bson.A{})); ok {
		t.Error("updateUser roles is not a self change")
	}
	if u, needs, ok := SelfNeeds("usersInfo", "db1", cmd("usersInfo", bson.D{{Key: "user", Value: "u"}, {Key: "db", Value: "db1"}})); !ok || u != "u" || needs != nil {
		t.Errorf("usersInfo self: %v %v %v", u, needs, ok)
	}
	if _, _, ok := SelfNeeds("usersInfo", "db1", cmd("usersInfo", int32(1))); ok {
		t.Error("usersInfo 1 is not a self request")
	}
}

func TestUserCommandNeeds(t *testing.T) {
	cases := []struct {
		role Role
		name string
		db   string
		cmd  bson.D
		want bool
	}{
		{Role{"userAdmin", "db1"}, "createRole", "db1", cmd("createRole", "r", "roles", bson.A{"read"}, "privileges", bson.A{}), true},
		{Role{"userAdmin", "db1"}, "createUser", "db1", cmd("createUser", "u", "roles", bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "db2"}}}), false},
		{Role{"userAdminAnyDatabase", "admin"}, "createUser", "db1", cmd("createUser", "u", "roles", bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "db2"}}}), true},
		{Role{"userAdmin", "db1"}, "grantRolesToUser", "db1", cmd("grantRolesToUser", "u", "roles", bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "db2"}}}), false},
		{Role{"userAdmin", "db1"}, "rolesInfo", "db1", cmd("rolesInfo", int32(1)), true},
		{Role{"readWrite", "db1"}, "rolesInfo", "db1", cmd("rolesInfo", int32(1)), false},
		{Role{"userAdmin", "db1"}, "usersInfo", "db1", cmd("usersInfo", bson.D{{Key: "user", Value: "u"}, {Key: "db", Value: "db2"}}), false},
		{Role{"userAdmin", "db1"}, "dropAllRolesFromDatabase", "db1", cmd("dropAllRolesFromDatabase", int32(1)), true},
		{Role{"readWrite", "db1"}, "dropRole", "db1", cmd("dropRole", "r"), false},
		{Role{"backup", "admin"}, "find", "admin", cmd("find", "system.users"), true},
		{Role{"backup", "admin"}, "insert", "admin", cmd("insert", "system.users"), false},
		{Role{"restore", "admin"}, "insert", "db3", cmd("insert", "system.js"), true},
		{Role{"readAnyDatabase", "admin"}, "find", "admin", cmd("find", "system.users"), false},
		{Role{"userAdmin", "db1"}, "updateRole", "db1", cmd("updateRole", "r", "roles", bson.A{"read"}), false},
		{Role{"userAdminAnyDatabase", "admin"}, "updateRole", "db1", cmd("updateRole", "r", "roles", bson.A{"read"}), true},
		{Role{"userAdmin", "db1"}, "updateUser", "db1", cmd("updateUser", "u", "roles", bson.A{"read"}), false},
		{Role{"userAdminAnyDatabase", "admin"}, "updateUser", "db1", cmd("updateUser", "u", "roles", bson.A{"read"}), true},
		{Role{"userAdmin", "db1"}, "updateUser", "db1", cmd("updateUser", "u", "pwd", "x", "customData", bson.D{}), true},
	}
	for _, tc := range cases {
		needs, ok := Needs(tc.name, tc.db, tc.cmd)
		got := ok && Resolve([]Role{tc.role}).Allows(needs)
		if got != tc.want {
			t.Errorf("%v %s %v: got %v, want %v", tc.role, tc.name, tc.cmd, got, tc.want)
		}
	}
}

func TestListingNeeds(t *testing.T) {
	read := Resolve([]Role{{"read", "db1"}})
	if needs, _ := Needs("listDatabases", "admin", cmd("listDatabases", 1)); !read.Allows(needs) {
		t.Error("listDatabases (filtered) refused")
	}
	if needs, _ := Needs("listDatabases", "admin", cmd("listDatabases", 1, "authorizedDatabases", false)); read.Allows(needs) {
		t.Error("listDatabases authorizedDatabases:false allowed without listDatabases")
	}
	if needs, _ := Needs("listCollections", "db2", cmd("listCollections", 1)); read.Allows(needs) {
		t.Error("listCollections on another database allowed")
	}
	if needs, _ := Needs("listCollections", "db2", cmd("listCollections", 1, "authorizedCollections", true, "nameOnly", true)); !read.Allows(needs) {
		t.Error("listCollections authorizedCollections refused")
	}
	if !read.AnyOnDB("db1") || read.AnyOnDB("db2") || !read.AnyOn("db1", "c") || read.AnyOn("db1", "system.users") {
		t.Error("AnyOnDB/AnyOn")
	}
	one := ResolveRoles([]Role{{"r", "db2"}}, roleGraph(&RoleDoc{Role: Role{"r", "db2"}, Privileges: []Grant{findOn("db2", "c")}}))
	if !one.AnyOnDB("db2") || !one.AnyOn("db2", "c") || one.AnyOn("db2", "d") {
		t.Error("collection privilege: AnyOnDB/AnyOn")
	}
}
