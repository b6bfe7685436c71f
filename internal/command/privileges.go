package command

import (
	"slices"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Privilege checks (issue #13, second increment). With --auth on, after
// checkAuth, an authenticated connection runs a command only if the
// union of its users' role privileges (resolved from admin.system.users
// and, for user-defined roles, admin.system.roles at login, package
// privilege) grants what the command needs for this request, or the
// request is one a user may make of itself (privilege.SelfNeeds:
// changeOwnPassword, its own usersInfo; rolesInfo of roles it holds);
// otherwise Unauthorized and
// nothing runs. An unauthenticated connection got past checkAuth only for
// the handshake commands or the localhost exception, which need no
// privilege. With --auth off nothing changes.
//
// Invalidation: each connection's privileges carry the authGen they were
// read under; authGen moves whenever admin.system.users or
// admin.system.roles changes (catalog watches: this member's writes and
// replicated ones, rollback and initial sync alike) or a user command of
// this process bumps usersGen, and a connection whose privileges are older
// re-reads them before its next check (MongoDB's user cache
// invalidation). authGen is read before the documents, so a change racing
// a re-read is seen at the next command.

// checkPrivileges refuses a command the connection's users may not run.
func (d *Dispatcher) checkPrivileges(c *Command, ctx *Ctx) error {
	if !d.authOn || ctx.Conn == nil {
		return nil
	}
	users := ctx.Conn.authUsers()
	if len(users) == 0 {
		return nil
	}
	if gen := d.authGen(); users[0].gen != gen {
		users = d.refreshPrivileges(ctx.Conn, users, gen)
	}
	needs, ok := privilege.Needs(c.Name, ctx.DB, ctx.Cmd)
	if ok {
		set := users[0].privs // one user: no union to build
		for _, u := range users[1:] {
			set = append(set[:len(set):len(set)], u.privs...)
		}
		if set.Allows(needs) || selfAllowed(c.Name, ctx, users) {
			return nil
		}
	}
	return privilege.Unauthorized(ctx.DB, ctx.Cmd)
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
	return privilege.ResolveRoles(docRoles(doc), d.roleLookup())
}

// connPrivileges returns the union of the connection's users' privileges
// (as checkPrivileges refreshed them for this command) and whether they
// apply: auth on and an authenticated connection.
func (c *Ctx) connPrivileges() (privilege.Set, bool) {
	if !c.D.authOn || c.Conn == nil {
		return nil, false
	}
	users := c.Conn.authUsers()
	var set privilege.Set
	for _, u := range users {
		set = append(set, u.privs...)
	}
	return set, len(users) > 0
}

// holdsRoles reports whether rolesInfo names only roles the connection's
// users hold, directly or by inheritance (MongoDB lets a user view them
// without viewRole).
func holdsRoles(ctx *Ctx, users []authUser) bool {
	v := ctx.Cmd[0].Value
	list, isList := v.(bson.A)
	if !isList {
		list = bson.A{v}
	}
	named := privilege.RoleArgs(list, ctx.DB)
	if len(named) == 0 || len(named) != len(list) {
		return false // 1 (every role of the database) or a malformed value
	}
	var direct []privilege.Role
	for _, u := range users {
		if doc, err := ctx.D.userDoc(u.db, u.user); err == nil && doc != nil {
			direct = append(direct, docRoles(doc)...)
		}
	}
	held := privilege.ResolveAll(direct, ctx.D.roleLookup()).Roles
	for _, r := range named {
		if !slices.Contains(held, r) {
			return false
		}
	}
	return true
}

// wantsPrivileges reports connectionStatus's showPrivileges: true.
func wantsPrivileges(rest bson.D) bool {
	v, _ := bsonx.Get(rest, "showPrivileges")
	return v == true
}

// userPrivilegesBSON is connectionStatus's authenticatedUserPrivileges:
// the connection's users' privileges, transitively, as MongoDB names them.
func (c *Ctx) userPrivilegesBSON() bson.A {
	var roles []privilege.Role
	if c.Conn != nil {
		for _, u := range c.Conn.authUsers() {
			if doc, err := c.D.userDoc(u.db, u.user); err == nil && doc != nil {
				roles = append(roles, docRoles(doc)...)
			}
		}
	}
	return grantsBSON(privilege.ResolveAll(roles, c.D.roleLookup()).Grants)
}

// selfAllowed reports whether the request is one an authenticated user may
// make of itself and that user's privileges allow it.
func selfAllowed(name string, ctx *Ctx, users []authUser) bool {
	if name == "rolesInfo" {
		return holdsRoles(ctx, users)
	}
	user, needs, ok := privilege.SelfNeeds(name, ctx.DB, ctx.Cmd)
	if !ok {
		return false
	}
	for _, u := range users {
		if u.user == user && u.db == ctx.DB && u.privs.Allows(needs) {
			return true
		}
	}
	return false
}

// docRoles reads a user document's roles [{role, db}].
func docRoles(doc bson.Raw) []privilege.Role { return privilege.RolesOf(doc.Lookup("roles")) }

// checkRolesExist refuses roles that are neither built-in nor in
// admin.system.roles (RoleNotFound).
func (d *Dispatcher) checkRolesExist(roles bson.A) error {
	for _, r := range roles {
		rd, _ := r.(bson.D)
		nv, _ := bsonx.Get(rd, "role")
		dv, _ := bsonx.Get(rd, "db")
		name, _ := nv.(string)
		rdb, _ := dv.(string)
		role := privilege.Role{Name: name, DB: rdb}
		if privilege.Exists(role) {
			continue
		}
		doc, err := d.roleDoc(role)
		if err != nil {
			return err
		}
		if doc == nil {
			return mongoerr.New(mongoerr.RoleNotFound, "Could not find role: %s", role)
		}
	}
	return nil
}

// usersGen counts user writes in this process; every dispatcher shares it
// (a spurious re-read is harmless).
var usersGen atomic.Uint64

// usersChanged makes logged-in connections re-read their users' roles.
func usersChanged() { usersGen.Add(1) }

// authWatches caches each catalog's watches of the user and role
// collections (a node may install a new catalog: initial sync).
var authWatches sync.Map // *catalog.Catalog -> [2]*catalog.Watch

// authGen is the generation of the users' and roles' documents: it moves
// on every change to either collection, here or replicated, and on
// usersChanged. Each part only grows, so the sum changes with any of them.
func (d *Dispatcher) authGen() uint64 {
	cat := d.eng.Catalog()
	w, ok := authWatches.Load(cat)
	if !ok {
		w, _ = authWatches.LoadOrStore(cat, [2]*catalog.Watch{cat.Watch(usersDB + "." + usersColl), cat.Watch(usersDB + "." + rolesColl)})
	}
	ws := w.([2]*catalog.Watch)
	return usersGen.Load() + ws[0].Version() + ws[1].Version()
}

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
