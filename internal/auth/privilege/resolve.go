package privilege

import (
	"sort"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// RoleRef names a role (the router's spelling of Role).
type RoleRef = Role

// String returns "name@db", as MongoDB prints a role.
func (r Role) String() string { return r.Name + "@" + r.DB }

// RoleDoc is a user-defined role as admin.system.roles stores it:
// {_id: "db.role", role, db, privileges: [...], roles: [{role, db}]}.
type RoleDoc struct {
	Role       Role
	Privileges []Grant
	Roles      []Role
}

// Lookup finds a user-defined role's document (false: no such role).
type Lookup func(Role) (*RoleDoc, bool)

// maxResolved bounds the roles one resolution visits (a role graph is
// acyclic when written through the role commands, but a hand-edited
// admin.system.roles need not be).
const maxResolved = 1024

// Resolved is what a set of roles grants, transitively.
type Resolved struct {
	Roles  []Role  // every role reached, the given ones included, each once
	Grants []Grant // their privileges, merged per resource
	Set    Set     // the same privileges as relaydb checks them
}

// ResolveRoles returns the privileges of roles: built-in roles' own, and
// user-defined ones' (found through lookup, which may be nil) with the
// roles they inherit, transitively. Unknown roles grant nothing (a role
// dropped since a user was given it); cycles and repeats are visited once.
func ResolveRoles(roles []Role, lookup Lookup) Set { return ResolveAll(roles, lookup).Set }

// ResolveAll is ResolveRoles with the roles reached and the privileges as
// MongoDB names them (usersInfo and rolesInfo with showPrivileges).
func ResolveAll(roles []Role, lookup Lookup) Resolved {
	var out Resolved
	seen := map[Role]bool{}
	queue := append([]Role(nil), roles...)
	for len(queue) > 0 && len(seen) < maxResolved {
		r := queue[0]
		queue = queue[1:]
		if seen[r] {
			continue
		}
		seen[r] = true
		if privs, ok := Privileges(r); ok {
			out.Roles = append(out.Roles, r)
			out.Set = append(out.Set, privs...)
			for _, p := range privs {
				out.Grants = MergeGrants(out.Grants, []Grant{GrantOf(p)})
			}
			continue
		}
		if lookup == nil {
			continue
		}
		doc, ok := lookup(r)
		if !ok || doc == nil {
			continue
		}
		out.Roles = append(out.Roles, r)
		for _, g := range doc.Privileges {
			out.Set = append(out.Set, g.Privilege())
		}
		out.Grants = MergeGrants(out.Grants, doc.Privileges)
		queue = append(queue, doc.Roles...)
	}
	return out
}

// ParseRoleDoc reads a stored role document; malformed privileges or
// roles are skipped (a hand-edited document grants what it clearly says).
func ParseRoleDoc(raw bson.Raw) (*RoleDoc, error) {
	name, ok1 := raw.Lookup("role").StringValueOK()
	db, ok2 := raw.Lookup("db").StringValueOK()
	if !ok1 || !ok2 {
		return nil, mongoerr.New(mongoerr.BadValue, "role document without role and db")
	}
	doc := &RoleDoc{Role: Role{Name: name, DB: db}}
	if arr, ok := raw.Lookup("privileges").ArrayOK(); ok {
		vals, _ := arr.Values()
		for _, v := range vals {
			d, ok := v.DocumentOK()
			if !ok {
				continue
			}
			elems, _ := d.Elements()
			if g, err := parseGrant(rawToD(elems)); err == nil {
				doc.Privileges = MergeGrants(doc.Privileges, []Grant{g})
			}
		}
	}
	doc.Roles = RolesOf(raw.Lookup("roles"))
	return doc, nil
}

// RolesOf reads a stored roles array [{role, db}].
func RolesOf(v bson.RawValue) []Role {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	out := make([]Role, 0, len(vals))
	for _, v := range vals {
		r, ok := v.DocumentOK()
		if !ok {
			continue
		}
		name, _ := r.Lookup("role").StringValueOK()
		db, _ := r.Lookup("db").StringValueOK()
		out = append(out, Role{Name: name, DB: db})
	}
	return out
}

// rawToD converts a document's elements to bson.D (values unmarshalled).
func rawToD(elems []bson.RawElement) bson.D {
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		var v any
		rv := e.Value()
		switch rv.Type {
		case bson.TypeEmbeddedDocument:
			inner, _ := rv.Document().Elements()
			v = rawToD(inner)
		case bson.TypeArray:
			vals, _ := rv.Array().Values()
			a := make(bson.A, 0, len(vals))
			for _, x := range vals {
				if s, ok := x.StringValueOK(); ok {
					a = append(a, s)
				}
			}
			v = a
		case bson.TypeString:
			v = rv.StringValue()
		case bson.TypeBoolean:
			v = rv.Boolean()
		}
		out = append(out, bson.E{Key: e.Key(), Value: v})
	}
	return out
}

// CheckGrantable applies MongoDB's rules to what role would hold: a role
// on a database other than admin may inherit only roles of its database
// and name only resources of its database; a role may not inherit itself,
// directly or through the roles it would inherit (lookup sees the stored
// roles). InvalidRoleModification, as MongoDB.
func CheckGrantable(role Role, grants []Grant, roles []Role, lookup Lookup) error {
	for _, r := range roles {
		if r == role {
			return mongoerr.New(mongoerr.InvalidRoleModification, "Cannot grant role %s to itself.", role)
		}
		if role.DB != "admin" && r.DB != role.DB {
			return mongoerr.New(mongoerr.InvalidRoleModification, "Roles on the '%s' database cannot be granted roles from other databases", role.DB)
		}
	}
	for _, g := range grants {
		if role.DB != "admin" && (g.Resource.Any || g.Resource.Cluster || g.Resource.DB != role.DB) {
			return mongoerr.New(mongoerr.InvalidRoleModification, "Roles on the '%s' database cannot be granted privileges that target other databases or the cluster", role.DB)
		}
	}
	for _, r := range ResolveAll(roles, lookup).Roles {
		if r == role {
			return mongoerr.New(mongoerr.InvalidRoleModification, "Granting roles to %s would introduce a cycle in the role graph", role)
		}
	}
	return nil
}

// BuiltinRoles returns the built-in roles defined on db, sorted by name.
func BuiltinRoles(db string) []Role {
	var names []string
	for n := range dbRole {
		names = append(names, n)
	}
	if db == "admin" {
		for n := range anyDBRole {
			names = append(names, n)
		}
		for n := range clusterRole {
			names = append(names, n)
		}
		names = append(names, "root")
	}
	sort.Strings(names)
	out := make([]Role, len(names))
	for i, n := range names {
		out[i] = Role{Name: n, DB: db}
	}
	return out
}
