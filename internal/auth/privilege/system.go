package privilege

// SystemRole is MongoDB's __system role (on admin): every action on every
// resource, the internal ones (Internal: replication, migrations) that no
// other built-in role grants included. The internal user __system@local,
// which members log in as with the key file, holds it.
var SystemRole = Role{Name: "__system", DB: "admin"}

// SystemPrivileges are SystemRole's privileges.
func SystemPrivileges() Set {
	return Set{{Resource: Resource{Any: true}, Actions: ^Action(0)}}
}
