package integration

import (
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

// priv is a privilege document {resource: {db, collection}, actions}.
func privDoc(db, coll string, actions ...any) bson.D {
	return bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: db}, {Key: "collection", Value: coll}}}, {Key: "actions", Value: bson.A(actions)}}
}

func runOK(t *testing.T, c *mongo.Client, db string, cmd bson.D) bson.M {
	t.Helper()
	out, err := runCmd(t, c, db, cmd)
	if err != nil {
		t.Fatalf("%s on %s: %v", cmd[0].Key, db, err)
	}
	return out
}

// wantCode fails unless cmd fails with code (and errmsg containing msg).
func wantRoleErr(t *testing.T, c *mongo.Client, db string, cmd bson.D, code int32, msg string) {
	t.Helper()
	_, err := runCmd(t, c, db, cmd)
	if cmdCode(err) != code || !strings.Contains(fmt.Sprint(err), msg) {
		t.Errorf("%v on %s: %v, want %d %q", cmd, db, err, code, msg)
	}
}

// dget returns d's value for key, or nil.
func dget(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

func loginAs(t *testing.T, s *harness.Server, user string) *mongo.Client {
	t.Helper()
	c, err := loginClient(t, s, user, "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	return c
}

// TestAuthUserDefinedRoles: a role with find on one collection lets its
// user read that collection and nothing else; a role inheriting it grants
// the same plus its own; revoking a privilege, dropping a role or granting
// one back changes what open connections may do at their next command.
func TestAuthUserDefinedRoles(t *testing.T) {
	s, root := rolesSetup(t, nil)
	runOK(t, root, "db1", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}})
	runOK(t, root, "db1", bson.D{{Key: "createRole", Value: "findC"}, {Key: "privileges", Value: bson.A{privDoc("db1", "c", "find")}}, {Key: "roles", Value: bson.A{}}})
	runOK(t, root, "db1", bson.D{{Key: "createRole", Value: "more"}, {Key: "privileges", Value: bson.A{privDoc("db1", "d", "insert", "top")}}, {Key: "roles", Value: bson.A{"findC"}}})
	runOK(t, root, "admin", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{role("findC", "db1")}}})
	runOK(t, root, "admin", bson.D{{Key: "createUser", Value: "v"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{role("more", "db1")}}})
	u, v := loginAs(t, s, "u"), loginAs(t, s, "v")
	find := func(coll string) bson.D { return bson.D{{Key: "find", Value: coll}} }
	ins := func(coll string) bson.D {
		return bson.D{{Key: "insert", Value: coll}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}}}
	}
	check := func(who string, c *mongo.Client, db string, cmd bson.D, allowed bool) {
		t.Helper()
		_, err := runCmd(t, c, db, cmd)
		if allowed && err != nil || !allowed && cmdCode(err) != 13 {
			t.Errorf("%s %s %v on %s: %v, want allowed=%v", who, cmd[0].Key, cmd[0].Value, db, err, allowed)
		}
	}
	check("u", u, "db1", find("c"), true)
	check("u", u, "db1", find("d"), false)
	check("u", u, "db1", ins("c"), false)
	check("u", u, "db2", find("c"), false)
	check("u", u, "db1", bson.D{{Key: "listDatabases", Value: 1}}, false)
	check("v", v, "db1", find("c"), true) // inherited from findC
	check("v", v, "db1", ins("d"), true)
	check("v", v, "db1", ins("c"), false)

	runOK(t, root, "db1", bson.D{{Key: "revokePrivilegesFromRole", Value: "findC"}, {Key: "privileges", Value: bson.A{privDoc("db1", "c", "find")}}})
	check("u after revoke", u, "db1", find("c"), false)
	check("v after revoke", v, "db1", find("c"), false)
	runOK(t, root, "db1", bson.D{{Key: "grantPrivilegesToRole", Value: "findC"}, {Key: "privileges", Value: bson.A{privDoc("db1", "", "find")}}})
	check("u after grant", u, "db1", find("d"), true)
	runOK(t, root, "db1", bson.D{{Key: "revokeRolesFromRole", Value: "more"}, {Key: "roles", Value: bson.A{"findC"}}})
	check("v after revokeRolesFromRole", v, "db1", find("c"), false)
	runOK(t, root, "db1", bson.D{{Key: "grantRolesToRole", Value: "more"}, {Key: "roles", Value: bson.A{"findC"}}})
	check("v after grantRolesToRole", v, "db1", find("c"), true)

	info := runOK(t, root, "db1", bson.D{{Key: "rolesInfo", Value: "more"}, {Key: "showPrivileges", Value: true}})
	got := fmt.Sprint(info["roles"])
	for _, want := range []string{`"isBuiltin":false`, `"inheritedRoles":[{"role":"findC","db":"db1"}]`, `"actions":["insert","top"]`, `"actions":["find"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("rolesInfo more: %s, want %q", got, want)
		}
	}
	uinfo := runOK(t, root, "admin", bson.D{{Key: "usersInfo", Value: "v"}, {Key: "showPrivileges", Value: true}})
	if got := fmt.Sprint(uinfo["users"]); !strings.Contains(got, `"inheritedRoles":[{"role":"more","db":"db1"},{"role":"findC","db":"db1"}]`) || !strings.Contains(got, "inheritedPrivileges") {
		t.Errorf("usersInfo showPrivileges: %s", got)
	}

	runOK(t, root, "db1", bson.D{{Key: "dropRole", Value: "more"}})
	check("v after dropRole", v, "db1", ins("d"), false)
	if got := fmt.Sprint(runOK(t, root, "admin", bson.D{{Key: "usersInfo", Value: "v"}})["users"]); strings.Contains(got, `"more"`) {
		t.Errorf("dropRole left the role on its user: %s", got)
	}
	n := runOK(t, root, "db1", bson.D{{Key: "dropAllRolesFromDatabase", Value: 1}})
	check("u after dropAllRolesFromDatabase", u, "db1", find("c"), false)
	if fmt.Sprint(n["n"]) != "1" {
		t.Errorf("dropAllRolesFromDatabase: %v, want n 1", n)
	}
}

// TestAuthRoleErrors: MongoDB's errors for the role commands.
func TestAuthRoleErrors(t *testing.T) {
	_, root := rolesSetup(t, nil)
	create := func(name string, privs, roles bson.A) bson.D {
		return bson.D{{Key: "createRole", Value: name}, {Key: "privileges", Value: privs}, {Key: "roles", Value: roles}}
	}
	runOK(t, root, "db1", create("r1", bson.A{}, bson.A{}))
	runOK(t, root, "db1", create("r2", bson.A{}, bson.A{"r1", "read", "r1"}))
	if got := fmt.Sprint(runOK(t, root, "db1", bson.D{{Key: "rolesInfo", Value: "r2"}})["roles"]); !strings.Contains(got, `"roles":[{"role":"r1","db":"db1"},{"role":"read","db":"db1"}]`) {
		t.Errorf("duplicate roles kept: %s", got)
	}
	wantRoleErr(t, root, "db1", create("r1", bson.A{}, bson.A{}), 51002, `Role "r1@db1" already exists`)
	wantRoleErr(t, root, "db1", create("read", bson.A{}, bson.A{}), 2, "built-in role")
	wantRoleErr(t, root, "db1", create("", bson.A{}, bson.A{}), 2, "non-empty")
	wantRoleErr(t, root, "db1", create("r3", bson.A{privDoc("db1", "c", "fakeAction")}, bson.A{}), 2, "Unknown action type in privilege set: 'fakeAction'")
	wantRoleErr(t, root, "db1", create("r3", bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "db1"}}}, {Key: "actions", Value: bson.A{"find"}}}}, bson.A{}), 2, "resource")
	wantRoleErr(t, root, "db1", create("r3", bson.A{}, bson.A{"nope"}), 31, "nope@db1")
	wantRoleErr(t, root, "db1", create("r3", bson.A{privDoc("db2", "c", "find")}, bson.A{}), 49, "cannot be granted privileges that target other databases")
	wantRoleErr(t, root, "db1", create("r3", bson.A{}, bson.A{role("read", "db2")}), 49, "roles from other databases")
	wantRoleErr(t, root, "db1", bson.D{{Key: "grantRolesToRole", Value: "r1"}, {Key: "roles", Value: bson.A{"r2"}}}, 49, "cycle")
	wantRoleErr(t, root, "db1", bson.D{{Key: "grantRolesToRole", Value: "r1"}, {Key: "roles", Value: bson.A{"r1"}}}, 49, "to itself")
	wantRoleErr(t, root, "db1", bson.D{{Key: "updateRole", Value: "r1"}, {Key: "roles", Value: bson.A{"r2"}}}, 49, "cycle")
	wantRoleErr(t, root, "db1", bson.D{{Key: "grantRolesToRole", Value: "read"}, {Key: "roles", Value: bson.A{"r1"}}}, 2, "read@db1 is a built-in role and cannot be modified")
	wantRoleErr(t, root, "db1", bson.D{{Key: "grantRolesToRole", Value: "r1"}, {Key: "roles", Value: bson.A{}}}, 2, "non-empty")
	wantRoleErr(t, root, "db1", bson.D{{Key: "updateRole", Value: "ghost"}, {Key: "roles", Value: bson.A{}}}, 31, "ghost@db1")
	wantRoleErr(t, root, "db1", bson.D{{Key: "updateRole", Value: "r1"}}, 2, "at least one field")
	wantRoleErr(t, root, "db1", bson.D{{Key: "dropRole", Value: "read"}}, 2, "built-in")
	wantRoleErr(t, root, "db1", bson.D{{Key: "dropRole", Value: "ghost"}}, 31, "ghost@db1")
	wantRoleErr(t, root, "db1", bson.D{{Key: "grantPrivilegesToRole", Value: "ghost"}, {Key: "privileges", Value: bson.A{privDoc("db1", "", "find")}}}, 31, "ghost@db1")
	runOK(t, root, "db1", bson.D{{Key: "revokeRolesFromRole", Value: "r2"}, {Key: "roles", Value: bson.A{"fakeRole"}}})
	runOK(t, root, "admin", create("any", bson.A{privDoc("", "", "find"), bson.D{{Key: "resource", Value: bson.D{{Key: "cluster", Value: true}}}, {Key: "actions", Value: bson.A{"serverStatus", "inprog"}}}}, bson.A{role("read", "db2")}))
	if got := fmt.Sprint(runOK(t, root, "db1", bson.D{{Key: "rolesInfo", Value: 1}, {Key: "showBuiltinRoles", Value: true}})["roles"]); !strings.Contains(got, `"role":"dbOwner"`) || !strings.Contains(got, `"role":"r2"`) {
		t.Errorf("rolesInfo 1 with built-ins: %s", got)
	}
}

// TestAuthRoleCommandsPrivilegesAndWriteConcern: a user without the
// privilege gets 13 from every role command and nothing changes; a bad
// writeConcern refuses each write before it writes; w:1,j:true works.
func TestAuthRoleCommandsPrivilegesAndWriteConcern(t *testing.T) {
	s, root := rolesSetup(t, map[string]bson.A{"rw": {role("readWrite", "db1")}, "ua": {role("userAdminAnyDatabase", "admin")}})
	runOK(t, root, "db1", bson.D{{Key: "createRole", Value: "base"}, {Key: "privileges", Value: bson.A{}}, {Key: "roles", Value: bson.A{}}})
	rw, ua := loginAs(t, s, "rw"), loginAs(t, s, "ua")
	cmds := []bson.D{
		{{Key: "createRole", Value: "x"}, {Key: "privileges", Value: bson.A{privDoc("db1", "c", "find")}}, {Key: "roles", Value: bson.A{}}},
		{{Key: "updateRole", Value: "x"}, {Key: "roles", Value: bson.A{"base"}}},
		{{Key: "grantPrivilegesToRole", Value: "x"}, {Key: "privileges", Value: bson.A{privDoc("db1", "d", "insert")}}},
		{{Key: "revokePrivilegesFromRole", Value: "x"}, {Key: "privileges", Value: bson.A{privDoc("db1", "d", "insert")}}},
		{{Key: "grantRolesToRole", Value: "x"}, {Key: "roles", Value: bson.A{"read"}}},
		{{Key: "revokeRolesFromRole", Value: "x"}, {Key: "roles", Value: bson.A{"read"}}},
		{{Key: "dropRole", Value: "x"}},
		{{Key: "dropAllRolesFromDatabase", Value: 1}},
		{{Key: "dropAllUsersFromDatabase", Value: 1}},
	}
	wantRoleErr(t, rw, "db1", bson.D{{Key: "rolesInfo", Value: 1}}, 13, "not authorized")
	runOK(t, root, "admin", bson.D{{Key: "createUser", Value: "ua1"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{role("userAdmin", "db1")}}})
	ua1 := loginAs(t, s, "ua1") // userAdmin of db1 only: updateRole needs revokeRole on every database
	wantRoleErr(t, ua1, "db1", bson.D{{Key: "updateRole", Value: "base"}, {Key: "roles", Value: bson.A{}}}, 13, "not authorized")
	runOK(t, ua1, "db1", bson.D{{Key: "grantRolesToRole", Value: "base"}, {Key: "roles", Value: bson.A{"read"}}})
	runOK(t, ua, "db1", bson.D{{Key: "rolesInfo", Value: 1}})
	for _, cmd := range cmds {
		wantRoleErr(t, rw, "db1", cmd, 13, "not authorized on db1 to execute command { "+cmd[0].Key)
		bad := append(append(bson.D{}, cmd...), bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 2}}})
		if _, err := runCmd(t, ua, "db1", bad); err == nil {
			t.Errorf("%s with w:2 on a standalone accepted", cmd[0].Key)
		}
		good := append(append(bson.D{}, cmd...), bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "j", Value: true}}})
		runOK(t, ua, "db1", good)
	}
	if got := fmt.Sprint(runOK(t, root, "db1", bson.D{{Key: "rolesInfo", Value: 1}})["roles"]); got != "[]" {
		t.Errorf("roles left after dropAllRolesFromDatabase: %s", got)
	}
}

// TestAuthListingFiltered: listDatabases and listCollections (with
// authorizedCollections and nameOnly) show a user without the listing
// privilege what it holds privileges on, as MongoDB; asking for everything
// without the privilege is 13. connectionStatus shows the privileges.
func TestAuthListingFiltered(t *testing.T) {
	s, root := rolesSetup(t, nil)
	for _, ns := range [][2]string{{"db1", "c"}, {"db1", "d"}, {"db2", "e"}, {"db3", "f"}} {
		runOK(t, root, ns[0], bson.D{{Key: "create", Value: ns[1]}})
	}
	runOK(t, root, "db1", bson.D{{Key: "createRole", Value: "findC"}, {Key: "privileges", Value: bson.A{privDoc("db1", "c", "find")}}, {Key: "roles", Value: bson.A{}}})
	runOK(t, root, "admin", bson.D{{Key: "createUser", Value: "lister"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{role("findC", "db1"), role("read", "db2")}}})
	l := loginAs(t, s, "lister")
	names := func(out bson.M, key, field string) string {
		var got []string
		list, _ := out[key].(bson.A)
		if cur, ok := out["cursor"].(bson.D); ok {
			list, _ = dget(cur, "firstBatch").(bson.A)
		}
		for _, e := range list {
			d, _ := e.(bson.D)
			got = append(got, fmt.Sprint(dget(d, field)))
		}
		return strings.Join(got, ",")
	}
	if got := names(runOK(t, l, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}}), "databases", "name"); got != "db1,db2" {
		t.Errorf("listDatabases as lister: %q, want db1,db2", got)
	}
	if got := names(runOK(t, root, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}}), "databases", "name"); !strings.Contains(got, "db3") {
		t.Errorf("listDatabases as root: %q", got)
	}
	wantRoleErr(t, l, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "authorizedDatabases", Value: false}}, 13, "not authorized")
	authColls := bson.D{{Key: "listCollections", Value: 1}, {Key: "authorizedCollections", Value: true}, {Key: "nameOnly", Value: true}}
	if got := names(runOK(t, l, "db1", authColls), "", "name"); got != "c" {
		t.Errorf("listCollections authorizedCollections on db1: %q, want c", got)
	}
	if got := names(runOK(t, l, "db3", authColls), "", "name"); got != "" {
		t.Errorf("listCollections authorizedCollections on db3: %q, want none", got)
	}
	wantRoleErr(t, l, "db1", bson.D{{Key: "listCollections", Value: 1}}, 13, "not authorized")
	if got := names(runOK(t, l, "db2", bson.D{{Key: "listCollections", Value: 1}}), "", "name"); got != "e" {
		t.Errorf("listCollections on db2 (read): %q, want e", got)
	}
	st := runOK(t, l, "admin", bson.D{{Key: "connectionStatus", Value: 1}, {Key: "showPrivileges", Value: true}})
	if got := fmt.Sprint(st["authInfo"]); !strings.Contains(got, `"authenticatedUserPrivileges"`) || !strings.Contains(got, `{"db":"db1","collection":"c"}`) {
		t.Errorf("connectionStatus showPrivileges: %s", got)
	}
}

// TestAuthSelfService: with changeOwnPassword and changeOwnCustomData (a
// user-defined role's) a user may change its own password and customData
// but nobody else's and not its roles; without them it may not. A user
// may view its own user document and the roles it holds, not others'.
func TestAuthSelfService(t *testing.T) {
	s, root := rolesSetup(t, map[string]bson.A{"plain": {role("read", "db1")}, "other": {role("read", "db1")}})
	runOK(t, root, "admin", bson.D{{Key: "createRole", Value: "selfpw"}, {Key: "roles", Value: bson.A{}},
		{Key: "privileges", Value: bson.A{privDoc("admin", "", "changeOwnPassword", "changeOwnCustomData")}}})
	runOK(t, root, "admin", bson.D{{Key: "createUser", Value: "me"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"selfpw", role("read", "db1")}}})
	me, plain := loginAs(t, s, "me"), loginAs(t, s, "plain")
	runOK(t, me, "admin", bson.D{{Key: "updateUser", Value: "me"}, {Key: "pwd", Value: "n3w"}, {Key: "customData", Value: bson.D{{Key: "k", Value: 1}}}})
	if _, err := loginClient(t, s, "me", "n3w", "SCRAM-SHA-256"); err != nil {
		t.Fatalf("login with the password the user set: %v", err)
	}
	wantRoleErr(t, me, "admin", bson.D{{Key: "updateUser", Value: "other"}, {Key: "pwd", Value: "x"}}, 13, "not authorized")
	wantRoleErr(t, me, "admin", bson.D{{Key: "updateUser", Value: "me"}, {Key: "roles", Value: bson.A{"root"}}}, 13, "not authorized")
	wantRoleErr(t, plain, "admin", bson.D{{Key: "updateUser", Value: "plain"}, {Key: "pwd", Value: "x"}}, 13, "not authorized")
	runOK(t, plain, "admin", bson.D{{Key: "usersInfo", Value: "plain"}})
	wantRoleErr(t, plain, "admin", bson.D{{Key: "usersInfo", Value: "other"}}, 13, "not authorized")
	runOK(t, me, "admin", bson.D{{Key: "rolesInfo", Value: "selfpw"}, {Key: "showPrivileges", Value: true}})
	runOK(t, me, "db1", bson.D{{Key: "rolesInfo", Value: "read"}})
	wantRoleErr(t, me, "db1", bson.D{{Key: "rolesInfo", Value: "readWrite"}}, 13, "not authorized")
	wantRoleErr(t, me, "db1", bson.D{{Key: "rolesInfo", Value: 1}}, 13, "not authorized")
}

// TestAuthRolesSurviveRestart: roles are ordinary durable writes; after a
// restart the user's role still grants (and only grants) its privileges.
func TestAuthRolesSurviveRestart(t *testing.T) {
	s, root := rolesSetup(t, nil)
	runOK(t, root, "db1", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}}})
	runOK(t, root, "db1", bson.D{{Key: "createRole", Value: "findC"}, {Key: "privileges", Value: bson.A{privDoc("db1", "c", "find")}}, {Key: "roles", Value: bson.A{}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: 1}, {Key: "j", Value: true}}}})
	runOK(t, root, "admin", bson.D{{Key: "createUser", Value: "u"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{role("findC", "db1")}}})
	s.Restart(t)
	u := loginAs(t, s, "u")
	runOK(t, u, "db1", bson.D{{Key: "find", Value: "c"}})
	wantRoleErr(t, u, "db1", bson.D{{Key: "find", Value: "d"}}, 13, "not authorized")
	root2 := loginAs(t, s, "root")
	if got := fmt.Sprint(runOK(t, root2, "db1", bson.D{{Key: "rolesInfo", Value: "findC"}, {Key: "showPrivileges", Value: true}})["roles"]); !strings.Contains(got, `{"db":"db1","collection":"c"}`) {
		t.Errorf("rolesInfo after restart: %s", got)
	}
}
