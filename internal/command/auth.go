package command

import (
	"net"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/cmdspec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Authentication state (issue #13, first increment). With --auth off
// (the default) checkAuth lets everything through and nothing a client
// sees changes. With it on, a connection that has not authenticated may
// run only the commands whose roles include "unauthenticated" (the
// handshake and SASL commands), plus from loopback while admin.system.users
// is empty the commands of MongoDB's localhost exception.
// An authenticated connection's commands are checked against its roles'
// privileges next (privileges.go).
// Members log in to each other as __system@local with the key file
// (keyfile.go); the in-process connection of configsvr_migration.go is
// that user too (internalConn); with x.509 member authentication a peer
// whose certificate matches this member's O/OU/DC is that user too
// (x509_member.go).

// authUser is one authenticated user of a connection and the privileges
// of its roles, resolved at login (privileges.go).
type authUser struct {
	user, db string
	privs    privilege.Set
	gen      uint64 // authGen when privs were read (privileges.go)
}

// connAuth is a connection's authentication state, guarded by Conn.mu.
type connAuth struct {
	users     []authUser
	conv      *auth.Conversation // the conversation in progress, if any
	convDB    string             // its database (the authSource)
	skipEmpty bool               // options.skipEmptyExchange of its saslStart
}

// SetAuth turns authentication on (--auth), before serving.
func (d *Dispatcher) SetAuth(on bool) { d.authOn = on }

// checkAuth refuses a command an unauthenticated connection may not run.
func (d *Dispatcher) checkAuth(c *Command, ctx *Ctx) error {
	if !d.authOn || c.Def.spec.Roles.Has(cmdspec.RoleUnauthenticated) || ctx.Conn == nil {
		return nil
	}
	if ctx.Conn.authenticated() {
		return nil
	}
	if localhostException[c.Name] && ctx.DB == "admin" && isLoopback(ctx.Conn.Remote) && !d.anyUser() {
		return nil
	}
	return mongoerr.New(mongoerr.Unauthorized, "Command %s requires authentication", c.Name)
}

// localhostException lists what a loopback connection may run while no
// user exists: create the first user or role, initiate a replica set
// (which needs no user and must come first: users are written on a
// primary), read its status and reconfigure it (which only a primary
// accepts), as MongoDB's localhost exception.
var localhostException = map[string]bool{"createUser": true, "createRole": true, "replSetInitiate": true,
	"replSetGetStatus": true, "replSetReconfig": true}

// authenticated reports whether the connection has a user.
func (c *Conn) authenticated() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.auth.users) > 0
}

// logout forgets the users authenticated on db.
func (c *Conn) logout(db string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := c.auth.users[:0]
	for _, u := range c.auth.users {
		if u.db != db {
			kept = append(kept, u)
		}
	}
	c.auth.users = kept
	c.auth.conv = nil
}

// authUsers returns a copy of the connection's users.
func (c *Conn) authUsers() []authUser {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]authUser(nil), c.auth.users...)
}

// isLoopback reports whether a "host:port" remote address is loopback.
func isLoopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
