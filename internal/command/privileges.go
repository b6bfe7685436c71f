package command

import (
	"fmt"
	"sync/atomic"

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
// changes. A user write (updateUser, dropUser, grantRolesToUser,
// revokeRolesFromUser) bumps usersGen, and a connection whose users were
// resolved under an older generation re-reads them before its next check
// (MongoDB's user cache invalidation). TODO(#13): changeOwnPassword;
// user-defined roles; invalidation on other members (replica sets).

// checkPrivileges refuses a command the connection's users may not run.
func (d *Dispatcher) checkPrivileges(c *Command, ctx *Ctx) error {
	if !d.authOn || ctx.Conn == nil {
		return nil
	}
	users := ctx.Conn.authUsers()
	if len(users) == 0 {
		return nil
	}
	if gen := usersGen.Load(); users[0].gen != gen {
		users = d.refreshPrivileges(ctx.Conn, users, gen)
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
	if privs, ok := d.systemPrivileges(db, user); ok {
		return privs
	}
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

// usersGen counts user writes in this process; every dispatcher shares it
// (a spurious re-read is harmless).
var usersGen atomic.Uint64

// usersChanged makes logged-in connections re-read their users' roles.
func usersChanged() { usersGen.Add(1) }

// refreshPrivileges re-reads users' roles (outside Conn.mu) and stores
// them on the connection unless it logged in or out meanwhile.
func (d *Dispatcher) refreshPrivileges(c *Conn, users []authUser, gen uint64) []authUser {
	for i := range users {
		users[i].privs, users[i].gen = d.userPrivileges(users[i].db, users[i].user), gen
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.auth.users) == len(users) {
		for i := range users {
			if c.auth.users[i].user == users[i].user && c.auth.users[i].db == users[i].db {
				c.auth.users[i] = users[i]
			}
		}
	}
	return users
}
