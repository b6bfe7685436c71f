package command

import (
	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Cursor ownership under --auth (issue #13), as MongoDB: a cursor keeps
// the users authenticated when it was opened (Cursor.Owners, set once
// before it is registered, never changed), and getMore or killCursors from
// a connection that shares none of them is refused with Unauthorized and
// leaves the cursor as it was; killCursors is allowed to a user with
// killAnyCursor on the collection (hostManager, clusterAdmin, root), as
// in MongoDB. Without --auth cursors have no owners and
// nothing is checked.
//
// TODO(#14): MongoDB also re-checks, at each getMore, every privilege the
// originating command needed (an aggregate's $lookup/$unionWith
// collections); here getMore needs find on the cursor's collection only.

// cursorUsers names the connection's users as cursor owners (nil without
// auth or a connection).
func (c *Ctx) cursorUsers() []string {
	if !c.D.authOn || c.Conn == nil {
		return nil
	}
	users := c.Conn.authUsers()
	keys := make([]string, len(users))
	for i, u := range users {
		keys[i] = auth.UserKey(u.db, u.user)
	}
	return auth.SortedOwners(keys)
}

// ownCursor sets a new cursor's owners.
func (c *Ctx) ownCursor(cur *exec.Cursor) {
	if c.D.authOn {
		cur.Owners = c.cursorUsers()
	}
}

// checkCursorOwner refuses a getMore of cursor id by a connection that
// did not open it; nil without auth or when no such cursor exists (the
// caller answers CursorNotFound).
func (c *Ctx) checkCursorOwner(id int64) error {
	if !c.D.authOn {
		return nil
	}
	owners, ok := c.D.eng.Cursors().OwnersOf(id)
	if !ok || auth.Coauthorized(owners, c.cursorUsers()) {
		return nil
	}
	return mongoerr.New(mongoerr.Unauthorized, "cursor id %d was not created by the authenticated user", id)
}

// checkKillCursor refuses killCursors of cursor id (on coll) by a
// connection that did not open it and lacks killAnyCursor on coll, with
// MongoDB's message for it.
func (c *Ctx) checkKillCursor(id int64, coll string) error {
	if !c.D.authOn {
		return nil
	}
	owners, ok := c.D.eng.Cursors().OwnersOf(id)
	if !ok || auth.Coauthorized(owners, c.cursorUsers()) {
		return nil
	}
	if set, _ := c.connPrivileges(); set.Allows([]privilege.Need{{DB: c.DB, Coll: coll, Actions: privilege.KillAnyCursor}}) {
		return nil
	}
	return mongoerr.New(mongoerr.Unauthorized, "not authorized to kill cursor on %s", c.ns(coll))
}
