package router

import (
	"net"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Authentication and privileges on the router (issue #13), as mongos:
// users live on the config server replica set (its admin.system.users);
// the router authenticates clients against them (SCRAM, auth_sasl.go),
// caches them (auth_users.go) and checks every command's privileges
// itself before it runs or forwards anything (auth_privileges.go). User
// management commands run on the config servers (auth_usercmds.go).
//
// Invariants:
//   - With Options.Auth off (the default) authorize lets everything
//     through; nothing a client sees changes apart from what mongos also
//     does without auth (saslStart/saslContinue/logout answered by the
//     router against the config servers' users, connectionStatus naming
//     the logged-in users).
//   - With it on, a command runs (locally or forwarded, on the fast path
//     too) only if the connection has authenticated and its users'
//     privileges grant what the command needs, or the command is one of
//     the handshake commands an unauthenticated client may run, or it is
//     createUser on admin from loopback while the config servers hold no
//     user (the localhost exception). Anything else is Unauthorized (13)
//     and nothing is sent to a shard or config server.
//   - A connection's state holds only user names; privileges come from the
//     bounded user cache, so a user command through this router, or a
//     moved user cache generation on the config servers (polled every
//     userCacheInvalidationIntervalSecs, user_cache_gen.go), changes what
//     the next command may do.
//   - Per-connection state is dropped in ConnClosed.
//
// TODO(#14): Commands
// are forwarded as __system, without the client's identity ($audit
// metadata); cursors are tied to their users here (cursor_owner.go).

// authState is the router's authentication state.
type authState struct {
	on    bool
	users *userCache
	conns sync.Map // *command.Conn -> *connAuth
	// haveUsers is set once the config servers are seen to hold a user,
	// which closes the localhost exception for good.
	haveUsers atomic.Bool
	inval     cacheInvalidator // user_cache_gen.go
}

// userRef names an authenticated user.
type userRef struct{ user, db string }

// connAuth is one client connection's authentication state.
type connAuth struct {
	mu        sync.Mutex
	users     []userRef          // REQUIRES: mu
	conv      *auth.Conversation // the SASL conversation in progress; REQUIRES: mu
	convDB    string             // its database (authSource); REQUIRES: mu
	skipEmpty bool               // options.skipEmptyExchange of its saslStart; REQUIRES: mu
}

// connAuthOf returns conn's state, creating it.
func (r *Router) connAuthOf(conn *command.Conn) *connAuth {
	if v, ok := r.auth.conns.Load(conn); ok {
		return v.(*connAuth)
	}
	v, _ := r.auth.conns.LoadOrStore(conn, &connAuth{})
	return v.(*connAuth)
}

// authUsers returns a copy of conn's users (none for a connection that
// never authenticated, without creating its state).
func (r *Router) authUsers(conn *command.Conn) []userRef {
	v, ok := r.auth.conns.Load(conn)
	if !ok {
		return nil
	}
	ca := v.(*connAuth)
	ca.mu.Lock()
	defer ca.mu.Unlock()
	return append([]userRef(nil), ca.users...)
}

// addUser records a completed login (once per user).
func (ca *connAuth) addUser(u userRef) {
	for _, have := range ca.users {
		if have == u {
			return
		}
	}
	ca.users = append(ca.users, u)
}

// logout forgets the users authenticated on db and any conversation.
func (ca *connAuth) logout(db string) {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	kept := ca.users[:0]
	for _, u := range ca.users {
		if u.db != db {
			kept = append(kept, u)
		}
	}
	ca.users = kept
	ca.conv = nil
}

// authorize refuses a command the connection may not run (see the
// invariants above); nil when it may.
func (r *Router) authorize(c *call) error {
	if !r.auth.on || c.conn == nil {
		return nil
	}
	name := canonicalName(c.name)
	if unauthenticatedOK(name) {
		return nil
	}
	users := r.authUsers(c.conn)
	if len(users) == 0 {
		if name == "createUser" && c.db == "admin" && isLoopback(c.conn.Remote) && !r.anyUser(c) {
			return nil
		}
		return mongoerr.New(mongoerr.Unauthorized, "Command %s requires authentication", c.name)
	}
	return r.checkPrivileges(c, name, users)
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

// rawAuthorized reports whether the fast path may forward q: always with
// auth off; with it on, only a logged-in connection's find, count,
// distinct or write its users may run (the decoded path refuses the
// rest, or serves findAndModify, whose privileges depend on its fields).
func (r *Router) rawAuthorized(conn *command.Conn, q *rawReq) bool {
	if !r.auth.on || conn == nil {
		return true
	}
	name := canonicalName(q.name)
	users := r.authUsers(conn)
	if len(users) == 0 || name == "findAndModify" {
		return false
	}
	c := &call{r: r, conn: conn, db: q.db, cmd: bson.D{{Key: q.name, Value: q.coll}}, name: q.name, ctx: r.ctx}
	return r.checkPrivileges(c, name, users) == nil
}
