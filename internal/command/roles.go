package command

import (
	"fmt"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// User-defined roles live in admin.system.roles as MongoDB stores them:
// {_id: "db.role", role, db, privileges: [{resource, actions}], roles:
// [{role, db}]}, written through the engine like users (they replicate,
// survive restart and honour writeConcern). The role commands' read,
// check, write sequences run one at a time in this process (roleWriteMu),
// as MongoDB's user-management lock; privileges.go re-reads them for
// logged-in connections when either collection changes.
const (
	rolesColl     = "system.roles"
	maxRolesReply = 10000 // rolesInfo's bound on roles returned
)

// roleWriteMu serialises the role and user commands' read-modify-writes.
var roleWriteMu sync.Mutex

func roleID(r privilege.Role) string { return r.DB + "." + r.Name }

// findAuthDocs returns the documents of admin.<coll> matching filter (at
// most limit).
func (d *Dispatcher) findAuthDocs(coll string, filter bson.D, limit int64) ([]bson.Raw, error) {
	it, _, err := d.eng.Find(usersDB, coll, exec.FindParams{Filter: filter, Limit: limit})
	if err != nil {
		return nil, fmt.Errorf("reading %s.%s: %w", usersDB, coll, err)
	}
	defer it.Close()
	var out []bson.Raw
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		b, err := r.Bytes()
		if err != nil {
			return nil, err
		}
		out = append(out, bson.Raw(append([]byte(nil), b...)))
	}
	return out, it.Err()
}

// roleDoc returns a user-defined role's document, or nil.
func (d *Dispatcher) roleDoc(r privilege.Role) (*privilege.RoleDoc, error) {
	docs, err := d.findAuthDocs(rolesColl, bson.D{{Key: "_id", Value: roleID(r)}}, 1)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return privilege.ParseRoleDoc(docs[0])
}

// roleLookup is privilege.Lookup over admin.system.roles (a failed read
// finds nothing: it grants nothing).
func (d *Dispatcher) roleLookup() privilege.Lookup {
	return func(r privilege.Role) (*privilege.RoleDoc, bool) {
		doc, err := d.roleDoc(r)
		if err != nil {
			d.log.Warn("reading a role", "role", r.String(), "err", err)
		}
		return doc, err == nil && doc != nil
	}
}

// userDefinedRole returns the command's role of c.DB and its document:
// BadValue for a built-in role, RoleNotFound for a missing one.
func (c *Ctx) userDefinedRole(name string) (privilege.Role, *privilege.RoleDoc, error) {
	r := privilege.Role{Name: name, DB: c.DB}
	if privilege.Exists(r) {
		return r, nil, mongoerr.New(mongoerr.BadValue, "%s is a built-in role and cannot be modified", r)
	}
	doc, err := c.D.roleDoc(r)
	if err != nil {
		return r, nil, err
	}
	if doc == nil {
		return r, nil, mongoerr.New(mongoerr.RoleNotFound, "Could not find role: %s", r)
	}
	return r, doc, nil
}

// roleArgs reads and checks a roles argument (names of c.DB's roles or
// {role, db}; each must exist), without repeats.
func (c *Ctx) roleArgs(given bson.A) ([]privilege.Role, error) {
	if _, err := c.parseRoles(given); err != nil {
		return nil, err
	}
	return distinctRoles(nil, privilege.RoleArgs(given, c.DB)), nil
}

// distinctRoles appends add's roles missing from have.
func distinctRoles(have, add []privilege.Role) []privilege.Role {
	out := append([]privilege.Role(nil), have...)
	for _, r := range add {
		found := false
		for _, h := range out {
			found = found || h == r
		}
		if !found {
			out = append(out, r)
		}
	}
	return out
}

func rolesBSON(roles []privilege.Role) bson.A {
	out := bson.A{}
	for _, r := range roles {
		out = append(out, bson.D{{Key: "role", Value: r.Name}, {Key: "db", Value: r.DB}})
	}
	return out
}

func grantsBSON(gs []privilege.Grant) bson.A {
	out := bson.A{}
	for _, g := range gs {
		out = append(out, g.BSON())
	}
	return out
}

// setRole writes a role's privileges and/or roles ($set).
func (c *Ctx) setRole(r privilege.Role, set bson.D) error {
	stmt := exec.UpdateStmt{Q: bson.D{{Key: "_id", Value: roleID(r)}}, U: bson.D{{Key: "$set", Value: set}}}
	res := c.D.eng.Update(usersDB, rolesColl, []exec.UpdateStmt{stmt}, true, nil, nil)
	usersChanged()
	if err := writeErr(res); err != nil {
		return err
	}
	if res.N == 0 {
		return mongoerr.New(mongoerr.RoleNotFound, "Role %s not found", r)
	}
	return nil
}
