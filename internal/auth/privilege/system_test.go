package privilege

import "testing"

// TestSystemPrivileges: __system may run everything, internal commands
// included, where root may not.
func TestSystemPrivileges(t *testing.T) {
	internal := []Need{{Cluster: true, Actions: Internal}}
	if !SystemPrivileges().Allows(internal) {
		t.Error("__system lacks Internal")
	}
	root, _ := Privileges(Role{Name: "root", DB: "admin"})
	if Set(root).Allows(internal) {
		t.Error("root holds Internal")
	}
	all := []Need{{DB: "admin", Coll: "system.users", Actions: Find | Insert | Remove}, {DB: "local", Coll: "oplog.rs", Actions: Find}, {Cluster: true, Actions: Shutdown | ReplSetConfigure}}
	if !SystemPrivileges().Allows(all) {
		t.Error("__system lacks an action")
	}
}
