package privilege

import "strings"

// Need is one privilege a request needs: actions on a collection (Coll
// set), a database (Coll ""), or the cluster.
type Need struct {
	DB, Coll string
	Cluster  bool
	Actions  Action
}

// Set is the union of a connection's users' privileges, resolved once at
// login.
type Set []Privilege

// Resolve returns the privileges of built-in roles, skipping unknown ones;
// ResolveRoles also follows user-defined roles.
func Resolve(roles []Role) Set { return ResolveRoles(roles, nil) }

// Allows reports whether s grants every action of every need.
func (s Set) Allows(needs []Need) bool {
	for _, n := range needs {
		var have Action
		for _, p := range s {
			if p.Resource.covers(n) {
				have |= p.Actions
			}
		}
		if !have.Has(n.Actions) {
			return false
		}
	}
	return true
}

// covers reports whether r applies to n's resource.
func (r Resource) covers(n Need) bool {
	switch {
	case r.Any:
		return true
	case r.Cluster || n.Cluster:
		return r.Cluster && n.Cluster
	case r.DB != "" && r.DB != n.DB:
		return false
	case r.Coll != "":
		return r.Coll == n.Coll
	}
	return !strings.HasPrefix(n.Coll, "system.")
}
