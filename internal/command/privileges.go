package command

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Privilege checks (issue #13, second increment). With --auth on, after
// checkAuth, an authenticated connection runs a command only if the
// union of its users' role privileges (resolved from admin.system.users
// at login, package privilege) grants what the command needs for this
// request; otherwise Unauthorized and nothing runs. An unauthenticated
// connection got past checkAuth only for the handshake commands or the
// localhost exception, which need no privilege. With --auth off nothing
// changes. TODO(#13): re-resolve a logged-in user's roles after
// updateUser/grantRolesToUser/revokeRolesFromUser/dropUser (MongoDB's
// user cache invalidation); changeOwnPassword; user-defined roles.

// checkPrivileges refuses a command the connection's users may not run.
func (d *Dispatcher) checkPrivileges(c *Command, ctx *Ctx) error {
	if !d.authOn || ctx.Conn == nil {
		return nil
	}
	users := ctx.Conn.authUsers()
	if len(users) == 0 {
		return nil
	}
	needs, ok := privilege.Needs(c.Name, ctx.DB, ctx.Cmd)
	if ok {
		var set privilege.Set
		for _, u := range users {
			set = append(set, u.privs...)
		}
		if set.Allows(needs) {
			return nil
		}
	}
	return mongoerr.New(mongoerr.Unauthorized, "not authorized on %s to execute command { %s: %s }", ctx.DB, ctx.Cmd[0].Key, shortValue(ctx.Cmd[0].Value))
}

// shortValue prints a command's first value for an error message.
func shortValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	s := fmt.Sprint(v)
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return s
}

// userPrivileges resolves db.user's roles to privileges (none on error:
// a failed read grants nothing).
func (d *Dispatcher) userPrivileges(db, user string) privilege.Set {
	doc, err := d.userDoc(db, user)
	if err != nil || doc == nil {
		if err != nil {
			d.log.Warn("reading a user's roles", "user", user, "db", db, "err", err)
		}
		return nil
	}
	return privilege.Resolve(docRoles(doc))
}

// docRoles reads a user document's roles [{role, db}].
func docRoles(doc bson.Raw) []privilege.Role {
	arr, ok := doc.Lookup("roles").ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	out := make([]privilege.Role, 0, len(vals))
	for _, v := range vals {
		r, ok := v.DocumentOK()
		if !ok {
			continue
		}
		name, _ := r.Lookup("role").StringValueOK()
		rdb, _ := r.Lookup("db").StringValueOK()
		out = append(out, privilege.Role{Name: name, DB: rdb})
	}
	return out
}

// checkRolesExist refuses roles relaydb does not know (RoleNotFound).
func checkRolesExist(roles bson.A) error {
	for _, r := range roles {
		d, _ := r.(bson.D)
		nv, _ := bsonx.Get(d, "role")
		dv, _ := bsonx.Get(d, "db")
		name, _ := nv.(string)
		rdb, _ := dv.(string)
		if !privilege.Exists(privilege.Role{Name: name, DB: rdb}) {
			return mongoerr.New(mongoerr.RoleNotFound, "Could not find role: %s@%s", name, rdb)
		}
	}
	return nil
}
