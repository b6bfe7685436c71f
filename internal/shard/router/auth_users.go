package router

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
)

// The user cache: users read from the config server primary's
// admin.system.users (readConcern majority), kept until the config
// servers' user cache generation moves (polled every
// userCacheInvalidationIntervalSecs, user_cache_gen.go) and dropped at
// once when a user command runs through this router. userCacheTTL only
// picks which entries make room first when the cache is full.
const (
	userCacheTTL     = 30 * time.Second
	userCacheMax     = 1000 // entries; bounded memory whatever the clients do
	userFetchTimeout = 10 * time.Second
)

// userFetcher reads db.user's document; nil (no error) when there is none.
type userFetcher func(ctx context.Context, db, user string) (bson.Raw, error)

// roleFetcher reads a user-defined role's document (nil: none).
type roleFetcher func(ctx context.Context, r privilege.Role) (bson.Raw, error)

// cachedUser is one user as read: its credentials, roles and the
// privileges they resolve to. A nil doc records that the user does not
// exist (a dropped user's connection then gets no privilege).
type cachedUser struct {
	doc   bson.Raw
	roles bson.A // [{role, db}] as stored, for connectionStatus
	privs privilege.Set
	at    time.Time
}

// userCache is safe for concurrent use.
type userCache struct {
	fetch     userFetcher
	fetchRole roleFetcher // nil: built-in roles only
	log       func(msg string, args ...any)
	now       func() time.Time
	mu        struct {
		sync.Mutex
		m   map[string]*cachedUser // by "db.user"
		gen uint64                 // bumped by invalidate
	}
}

func newUserCache(fetch userFetcher) *userCache {
	uc := &userCache{fetch: fetch, now: time.Now, log: func(string, ...any) {}}
	uc.mu.m = map[string]*cachedUser{}
	return uc
}

// get returns db.user, read anew when absent or when fresh is set (a
// login checks the current password).
func (uc *userCache) get(ctx context.Context, db, user string, fresh bool) (*cachedUser, error) {
	key := db + "." + user
	uc.mu.Lock()
	e, gen := uc.mu.m[key], uc.mu.gen
	uc.mu.Unlock()
	if e != nil && !fresh {
		return e, nil
	}
	doc, err := uc.fetch(ctx, db, user)
	if err != nil {
		return nil, err
	}
	e = newCachedUser(doc, uc.now(), uc.roleLookup(ctx))
	uc.mu.Lock()
	defer uc.mu.Unlock()
	if gen == uc.mu.gen { // not invalidated while reading: keep it
		uc.makeRoomLocked()
		uc.mu.m[key] = e
	}
	return e, nil
}

// makeRoomLocked drops expired entries, then any, until one more fits.
// REQUIRES: uc.mu
func (uc *userCache) makeRoomLocked() {
	if len(uc.mu.m) < userCacheMax {
		return
	}
	now := uc.now()
	for k, e := range uc.mu.m {
		if now.Sub(e.at) >= userCacheTTL {
			delete(uc.mu.m, k)
		}
	}
	for k := range uc.mu.m {
		if len(uc.mu.m) < userCacheMax {
			return
		}
		delete(uc.mu.m, k)
	}
}

// invalidate forgets every user (a user command ran through the router).
func (uc *userCache) invalidate() {
	uc.mu.Lock()
	defer uc.mu.Unlock()
	clear(uc.mu.m)
	uc.mu.gen++
}

func (uc *userCache) len() int {
	uc.mu.Lock()
	defer uc.mu.Unlock()
	return len(uc.mu.m)
}

// roleLookup reads user-defined roles from the config servers while one
// user's roles are resolved (a failed read grants nothing and is logged).
func (uc *userCache) roleLookup(ctx context.Context) privilege.Lookup {
	if uc.fetchRole == nil {
		return nil
	}
	return func(r privilege.Role) (*privilege.RoleDoc, bool) {
		raw, err := uc.fetchRole(ctx, r)
		if err == nil && raw != nil {
			doc, perr := privilege.ParseRoleDoc(raw)
			if perr == nil {
				return doc, true
			}
			err = perr
		}
		if err != nil {
			uc.log("reading a role from the config servers", "role", r.String(), "err", err)
		}
		return nil, false
	}
}

func newCachedUser(doc bson.Raw, at time.Time, lookup privilege.Lookup) *cachedUser {
	e := &cachedUser{doc: doc, at: at, roles: bson.A{}}
	if doc == nil {
		return e
	}
	arr, _ := doc.Lookup("roles").ArrayOK()
	vals, _ := arr.Values()
	var roles []privilege.Role
	for _, v := range vals {
		r, ok := v.DocumentOK()
		if !ok {
			continue
		}
		name, _ := r.Lookup("role").StringValueOK()
		rdb, _ := r.Lookup("db").StringValueOK()
		roles = append(roles, privilege.Role{Name: name, DB: rdb})
		e.roles = append(e.roles, bson.D{{Key: "role", Value: name}, {Key: "db", Value: rdb}})
	}
	e.privs = privilege.ResolveRoles(roles, lookup)
	return e
}

// credentials returns the user's SCRAM credentials (ErrUserNotFound for a
// missing user or one without credentials).
func (e *cachedUser) credentials() (auth.Credentials, error) {
	if e.doc == nil {
		return auth.Credentials{}, auth.ErrUserNotFound
	}
	creds, ok := e.doc.Lookup("credentials").DocumentOK()
	if !ok {
		return auth.Credentials{}, auth.ErrUserNotFound
	}
	return auth.ParseCredentials(bson.Raw(creds))
}

// fetchUser reads db.user from the config server primary, majority
// committed (a user created through another router with w:majority is
// seen).
func (r *Router) fetchUser(ctx context.Context, db, user string) (bson.Raw, error) {
	docs, err := r.findUsers(ctx, bson.D{{Key: "_id", Value: db + "." + user}})
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return bson.Marshal(docs[0])
}

// fetchRole reads a user-defined role from the config servers.
func (r *Router) fetchRole(ctx context.Context, role privilege.Role) (bson.Raw, error) {
	docs, err := r.findAuthDocs(ctx, "system.roles", bson.D{{Key: "_id", Value: role.DB + "." + role.Name}})
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return bson.Marshal(docs[0])
}

// findUsers runs a one-document find on the config servers'
// admin.system.users.
func (r *Router) findUsers(ctx context.Context, filter bson.D) ([]bson.D, error) {
	return r.findAuthDocs(ctx, "system.users", filter)
}

// findAuthDocs runs a majority one-document find on the config servers'
// admin.<coll>.
func (r *Router) findAuthDocs(ctx context.Context, coll string, filter bson.D) ([]bson.D, error) {
	ctx, cancel := context.WithTimeout(ctx, userFetchTimeout)
	defer cancel()
	cmd := bson.D{
		{Key: "find", Value: coll}, {Key: "filter", Value: filter},
		{Key: "limit", Value: int32(1)}, {Key: "singleBatch", Value: true},
		{Key: "readConcern", Value: bson.D{{Key: "level", Value: "majority"}}},
	}
	reply, err := r.cfg.Run(ctx, "admin", cmd, true)
	if err != nil {
		return nil, fmt.Errorf("reading admin.%s on the config servers: %w", coll, err)
	}
	return bsonx.CursorBatch(reply), nil
}

// anyUser reports whether the config servers hold a user (true on error:
// the localhost exception stays closed when in doubt).
func (r *Router) anyUser(c *call) bool {
	if r.auth.haveUsers.Load() {
		return true
	}
	docs, err := r.findUsers(c.ctx, bson.D{})
	if err != nil {
		r.log.Warn("localhost exception: cannot tell whether users exist", "err", err)
		return true
	}
	if len(docs) > 0 {
		r.auth.haveUsers.Store(true)
	}
	return len(docs) > 0
}
