package router

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Cursor ownership under auth (issue #13), as mongos: the shards' cursors
// are opened by the router (as __system), so the router itself ties each
// cursor it hands out (a shard's, in cursorTable, or its own, in
// mergedCursors) to the users of the connection that opened it, and
// refuses getMore or killCursors from a connection sharing none of them
// (Unauthorized, the cursor untouched); killCursors is allowed to a user
// holding killAnyCursor on the collection, as in MongoDB. The owners are set right after
// the opening command's reply is built, before the client sees the id,
// and live and expire with the cursor's entry. Without auth cursors have
// no owners and nothing is checked.

// cursorUsers names conn's users as cursor owners.
func (r *Router) cursorUsers(conn *command.Conn) []string {
	users := r.authUsers(conn)
	keys := make([]string, len(users))
	for i, u := range users {
		keys[i] = auth.UserKey(u.db, u.user)
	}
	return auth.SortedOwners(keys)
}

// ownCursor records conn's users as the owners of the cursor id a reply
// opened (id 0: none).
func (r *Router) ownCursor(conn *command.Conn, id int64) {
	if !r.auth.on || conn == nil || id == 0 {
		return
	}
	owners := r.cursorUsers(conn)
	if !r.merged.setOwners(id, owners) {
		r.cursors.setOwners(id, owners)
	}
}

// cursorOwners returns cursor id's owners; false if the router holds no
// such cursor.
func (r *Router) cursorOwners(id int64) ([]string, bool) {
	if owners, ok := r.merged.ownersOf(id); ok {
		return owners, true
	}
	return r.cursors.ownersOf(id)
}

// checkGetMoreOwner refuses a getMore of a cursor conn did not open.
func (r *Router) checkGetMoreOwner(c *call, id int64) error {
	if !r.auth.on || c.conn == nil {
		return nil
	}
	owners, ok := r.cursorOwners(id)
	if !ok || auth.Coauthorized(owners, r.cursorUsers(c.conn)) {
		return nil
	}
	return mongoerr.New(mongoerr.Unauthorized, "cursor id %d was not created by the authenticated user", id)
}

// checkKillOwner refuses killCursors naming a cursor conn did not open
// (any of ids: then none is killed).
func (r *Router) checkKillOwner(c *call, ids bson.A) error {
	if !r.auth.on || c.conn == nil {
		return nil
	}
	users := r.cursorUsers(c.conn)
	coll, _ := c.cmd[0].Value.(string)
	for _, v := range ids {
		id, _ := v.(int64)
		if owners, ok := r.cursorOwners(id); ok && !auth.Coauthorized(owners, users) && !r.killsAnyCursor(c, coll) {
			return mongoerr.New(mongoerr.Unauthorized, "not authorized to kill cursor on %s.%s", c.db, coll)
		}
	}
	return nil
}

// killsAnyCursor reports whether c's users hold killAnyCursor on coll.
func (r *Router) killsAnyCursor(c *call, coll string) bool {
	var set privilege.Set
	for _, u := range r.authUsers(c.conn) {
		e, err := r.auth.users.get(c.ctx, u.db, u.user, false)
		if err != nil {
			return false
		}
		set = append(set, e.privs...)
	}
	return set.Allows([]privilege.Need{{DB: c.db, Coll: coll, Actions: privilege.KillAnyCursor}})
}

// setOwners sets cursor id's owners; false if there is no such entry.
func (ct *cursorTable) setOwners(id int64, owners []string) bool {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	e, ok := ct.mu.byID[id]
	if ok {
		e.owners = owners
		ct.mu.byID[id] = e
	}
	return ok
}

func (ct *cursorTable) ownersOf(id int64) ([]string, bool) {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	e, ok := ct.mu.byID[id]
	return e.owners, ok
}

// setOwners sets router cursor id's owners; false if there is none.
func (mc *mergedCursors) setOwners(id int64, owners []string) bool {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	c := mc.byID[id]
	if c != nil {
		c.owners = owners
	}
	return c != nil
}

func (mc *mergedCursors) ownersOf(id int64) ([]string, bool) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	c := mc.byID[id]
	if c == nil {
		return nil, false
	}
	return c.owners, true
}
