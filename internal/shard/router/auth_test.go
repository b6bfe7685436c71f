package router

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
)

// fakeUsers is a userFetcher over user documents built in memory (the
// config servers do not exist in these tests).
type fakeUsers struct {
	docs    map[string]bson.Raw // "db.user" -> document
	fetches atomic.Int64
}

func newFakeUsers(t testing.TB, users ...[3]string) *fakeUsers {
	t.Helper()
	f := &fakeUsers{docs: map[string]bson.Raw{}}
	for _, u := range users { // {user, db, "role@db,role@db"}
		creds, err := auth.NewCredentials(u[0], "pw-"+u[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		roles := bson.A{}
		for _, r := range strings.Split(u[2], ",") {
			name, db, _ := strings.Cut(r, "@")
			roles = append(roles, bson.D{{Key: "role", Value: name}, {Key: "db", Value: db}})
		}
		doc, err := bson.Marshal(bson.D{{Key: "_id", Value: u[1] + "." + u[0]}, {Key: "user", Value: u[0]},
			{Key: "db", Value: u[1]}, {Key: "credentials", Value: creds.BSON()}, {Key: "roles", Value: roles}})
		if err != nil {
			t.Fatal(err)
		}
		f.docs[u[1]+"."+u[0]] = doc
	}
	return f
}

func (f *fakeUsers) fetch(_ context.Context, db, user string) (bson.Raw, error) {
	f.fetches.Add(1)
	return f.docs[db+"."+user], nil
}

// newAuthRouter is a router with Options.Auth and the fake users, past
// the localhost exception.
func newAuthRouter(t *testing.T, f *fakeUsers) *Router {
	t.Helper()
	r, err := New(Options{ConfigDB: "cfg/127.0.0.1:1", Version: "7.0.0", Auth: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.auth.users = newUserCache(f.fetch)
	r.auth.haveUsers.Store(true)
	return r
}

func handleOn(t *testing.T, r *Router, conn *command.Conn, db string, cmd bson.D) bson.D {
	t.Helper()
	body, err := bsonx.Encode(append(cmd, bson.E{Key: "$db", Value: db}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := bsonx.Decode(r.Handle(conn, &command.Request{Body: body}))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// login runs a SCRAM-SHA-256 conversation as the Go driver does.
func login(t *testing.T, r *Router, conn *command.Conn, db, user, pass string) bson.D {
	t.Helper()
	prepped, err := stringprep.SASLprep.Prepare(pass)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := scram.SHA256.NewClientUnprepped(user, prepped, "")
	if err != nil {
		t.Fatal(err)
	}
	conv := cl.NewConversation()
	first, _ := conv.Step("")
	reply := handleOn(t, r, conn, db, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: auth.MechSHA256},
		{Key: "payload", Value: bson.Binary{Data: []byte(first)}}, {Key: "options", Value: bson.D{{Key: "skipEmptyExchange", Value: true}}}})
	for i := 0; i < 3 && code(reply) == 0 && mustGet(reply, "done") != true; i++ {
		p, _ := mustGet(reply, "payload").(bson.Binary)
		next, err := conv.Step(string(p.Data))
		if err != nil {
			t.Fatalf("client step: %v", err)
		}
		reply = handleOn(t, r, conn, db, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: int32(1)},
			{Key: "payload", Value: bson.Binary{Data: []byte(next)}}})
	}
	return reply
}

func TestRouterAuthUnauthenticated(t *testing.T) {
	r := newAuthRouter(t, newFakeUsers(t))
	conn := command.NewConn(1, "10.0.0.5:4000", "s:1")
	for _, name := range []string{"hello", "isMaster", "ismaster", "ping", "buildInfo", "whatsmyuri", "connectionStatus", "logout"} {
		if rep := handleOn(t, r, conn, "admin", bson.D{{Key: name, Value: 1}}); code(rep) != 0 {
			t.Errorf("%s unauthenticated: %v", name, rep)
		}
	}
	start := time.Now()
	for name := range localCommands {
		if unauthenticatedOK(canonicalName(name)) || name == "saslStart" || name == "saslContinue" {
			continue
		}
		rep := handleOn(t, r, conn, "admin", bson.D{{Key: name, Value: "db.c"}})
		if msg, _ := mustGet(rep, "errmsg").(string); code(rep) != 13 || !strings.Contains(msg, "requires authentication") {
			t.Errorf("%s unauthenticated: %v", name, rep)
		}
	}
	for _, name := range []string{"find", "insert", "aggregate", "listCollections", "dropDatabase", "getMore"} {
		if rep := handleOn(t, r, conn, "test", bson.D{{Key: name, Value: "c"}}); code(rep) != 13 {
			t.Errorf("%s unauthenticated: %v", name, rep)
		}
	}
	// Nothing was sent: the config server does not exist, a forwarded
	// command would have waited for it.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("refusals took %v", d)
	}
	// The localhost exception does not apply from a remote address.
	if rep := handleOn(t, r, conn, "admin", bson.D{{Key: "createUser", Value: "a"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{}}}); code(rep) != 13 {
		t.Fatalf("createUser from a remote address: %v", rep)
	}
}

func TestRouterAuthLogin(t *testing.T) {
	r := newAuthRouter(t, newFakeUsers(t, [3]string{"reader", "test", "read@test"}))
	conn := command.NewConn(2, "127.0.0.1:4000", "s:1")
	if rep := login(t, r, conn, "test", "reader", "wrong"); code(rep) != 18 {
		t.Fatalf("wrong password: %v", rep)
	}
	if rep := login(t, r, conn, "test", "nobody", "pw-nobody"); code(rep) != 18 {
		t.Fatalf("unknown user: %v", rep)
	}
	if rep := login(t, r, conn, "test", "reader", "pw-reader"); code(rep) != 0 || mustGet(rep, "done") != true {
		t.Fatalf("login: %v", rep)
	}
	st := handleOn(t, r, conn, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
	info, _ := mustGet(st, "authInfo").(bson.D)
	if got := fmt.Sprint(info); !strings.Contains(got, "reader") || !strings.Contains(got, "read") {
		t.Fatalf("connectionStatus = %v", st)
	}
	if rep := handleOn(t, r, conn, "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}}); code(rep) != 13 {
		t.Fatalf("insert by a read user: %v", rep)
	}
	if rep := handleOn(t, r, conn, "admin", bson.D{{Key: "addShard", Value: "rs/h:1"}}); code(rep) != 13 {
		t.Fatalf("addShard by a read user: %v", rep)
	}
	handleOn(t, r, conn, "test", bson.D{{Key: "logout", Value: 1}})
	if rep := handleOn(t, r, conn, "test", bson.D{{Key: "find", Value: "c"}}); code(rep) != 13 || !strings.Contains(fmt.Sprint(rep), "requires authentication") {
		t.Fatalf("find after logout: %v", rep)
	}
	r.ConnClosed(conn)
	if _, ok := r.auth.conns.Load(conn); ok {
		t.Fatal("ConnClosed kept the connection's auth state")
	}
}

// TestRouterPrivileges checks authorize's verdicts for built-in roles on
// the router's own commands and forwarded ones.
func TestRouterPrivileges(t *testing.T) {
	f := newFakeUsers(t, [3]string{"reader", "test", "read@test"}, [3]string{"rw", "test", "readWrite@test"},
		[3]string{"mgr", "admin", "clusterManager@admin"}, [3]string{"mon", "admin", "clusterMonitor@admin"},
		[3]string{"root", "admin", "root@admin"})
	r := newAuthRouter(t, f)
	tests := []struct {
		user, db string
		cmd      bson.D
		ok       bool
	}{
		{"reader", "test", bson.D{{Key: "find", Value: "c"}}, true},
		{"reader", "test", bson.D{{Key: "insert", Value: "c"}}, false},
		{"reader", "other", bson.D{{Key: "find", Value: "c"}}, false},
		{"rw", "test", bson.D{{Key: "insert", Value: "c"}}, true},
		{"rw", "admin", bson.D{{Key: "shardCollection", Value: "test.c"}}, false},
		{"rw", "admin", bson.D{{Key: "enableSharding", Value: "test"}}, false},
		{"mgr", "admin", bson.D{{Key: "addShard", Value: "rs/h:1"}}, true},
		{"mgr", "admin", bson.D{{Key: "shardCollection", Value: "test.c"}}, true},
		{"mgr", "admin", bson.D{{Key: "moveChunk", Value: "test.c"}}, true},
		{"mgr", "admin", bson.D{{Key: "balancerStop", Value: 1}}, true},
		{"mgr", "test", bson.D{{Key: "find", Value: "c"}}, false},
		{"mon", "admin", bson.D{{Key: "listShards", Value: 1}}, true},
		{"mon", "admin", bson.D{{Key: "balancerStatus", Value: 1}}, true},
		{"mon", "admin", bson.D{{Key: "balancerStart", Value: 1}}, false},
		{"mon", "admin", bson.D{{Key: "removeShard", Value: "s"}}, false},
		{"root", "admin", bson.D{{Key: "removeShard", Value: "s"}}, true},
		{"root", "admin", bson.D{{Key: "configureFailPoint", Value: "x"}}, false}, // internal
		{"root", "test", bson.D{{Key: "noSuchCommand", Value: 1}}, false},
	}
	for _, tt := range tests {
		udb := "admin"
		if tt.user == "reader" || tt.user == "rw" {
			udb = "test"
		}
		conn := command.NewConn(3, "10.0.0.5:1", "s:1")
		r.connAuthOf(conn).addUser(userRef{user: tt.user, db: udb})
		name := tt.cmd[0].Key
		err := r.authorize(&call{r: r, conn: conn, db: tt.db, cmd: tt.cmd, name: name, ctx: context.Background()})
		if (err == nil) != tt.ok {
			t.Errorf("%s on %s by %s: %v, want ok=%v", name, tt.db, tt.user, err, tt.ok)
		}
	}
}

// TestEveryRouterCommandHasPrivileges: an authenticated client can run a
// router command only if it has a privilege mapping (else it is refused).
func TestEveryRouterCommandHasPrivileges(t *testing.T) {
	for name := range localCommands {
		if _, ok := routerNeeds(canonicalName(name), "admin", bson.D{{Key: name, Value: "db.c"}}); !ok {
			t.Errorf("router command %s has no privileges", name)
		}
	}
}

func TestRouterFastPathAuthorized(t *testing.T) {
	r := newAuthRouter(t, newFakeUsers(t, [3]string{"reader", "test", "read@test"}))
	conn := command.NewConn(4, "10.0.0.5:1", "s:1")
	find := &rawReq{name: "find", db: "test", coll: "c"}
	if r.rawAuthorized(conn, find) {
		t.Fatal("unauthenticated find on the fast path")
	}
	r.connAuthOf(conn).addUser(userRef{user: "reader", db: "test"})
	if !r.rawAuthorized(conn, find) || r.rawAuthorized(conn, &rawReq{name: "insert", db: "test", coll: "c"}) ||
		r.rawAuthorized(conn, &rawReq{name: "findAndModify", db: "test", coll: "c"}) {
		t.Fatal("fast path verdicts for a read user")
	}
	off := newTestRouter(t)
	if !off.rawAuthorized(command.NewConn(5, "x:1", "s:1"), find) {
		t.Fatal("auth off refuses the fast path")
	}
}

func TestUserCache(t *testing.T) {
	f := newFakeUsers(t, [3]string{"u", "test", "read@test"})
	uc := newUserCache(f.fetch)
	now := time.Unix(1000, 0)
	uc.now = func() time.Time { return now }
	ctx := context.Background()
	get := func(fresh bool) *cachedUser {
		e, err := uc.get(ctx, "test", "u", fresh)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	if e := get(false); e.doc == nil || len(e.privs) == 0 {
		t.Fatalf("user = %+v", e)
	}
	get(false)
	if n := f.fetches.Load(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (cached)", n)
	}
	get(true)
	now = now.Add(time.Hour) // no expiry: the generation poll invalidates
	get(false)
	if n := f.fetches.Load(); n != 2 {
		t.Fatalf("fetches = %d, want 2 (cached, then fresh; no expiry)", n)
	}
	delete(f.docs, "test.u") // dropped elsewhere
	uc.invalidate()
	if e := get(false); e.doc != nil || len(e.privs) != 0 {
		t.Fatalf("dropped user still cached: %+v", e)
	}
	for i := 0; i < userCacheMax+50; i++ {
		if _, err := uc.get(ctx, "test", fmt.Sprint("x", i), false); err != nil {
			t.Fatal(err)
		}
	}
	if n := uc.len(); n > userCacheMax {
		t.Fatalf("cache holds %d users, bound %d", n, userCacheMax)
	}
}

// TestRouterUserDefinedRole: a user's user-defined role (read from the
// config servers' admin.system.roles) grants what its document says,
// including the roles it inherits.
func TestRouterUserDefinedRole(t *testing.T) {
	f := newFakeUsers(t, [3]string{"app", "test", "appRole@test"})
	r := newAuthRouter(t, f)
	role, err := bson.Marshal(bson.D{{Key: "_id", Value: "test.appRole"}, {Key: "role", Value: "appRole"}, {Key: "db", Value: "test"},
		{Key: "privileges", Value: bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "test"}, {Key: "collection", Value: "c"}}},
			{Key: "actions", Value: bson.A{"insert"}}}}},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "other"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var roleReads atomic.Int64
	r.auth.users.fetchRole = func(_ context.Context, pr privilege.Role) (bson.Raw, error) {
		roleReads.Add(1)
		if pr.Name == "appRole" && pr.DB == "test" {
			return role, nil
		}
		return nil, nil
	}
	conn := command.NewConn(6, "10.0.0.5:1", "s:1")
	r.connAuthOf(conn).addUser(userRef{user: "app", db: "test"})
	for _, tt := range []struct {
		db  string
		cmd bson.D
		ok  bool
	}{
		{"test", bson.D{{Key: "insert", Value: "c"}}, true},
		{"test", bson.D{{Key: "insert", Value: "d"}}, false},
		{"test", bson.D{{Key: "find", Value: "c"}}, false},
		{"other", bson.D{{Key: "find", Value: "x"}}, true}, // inherited read@other
	} {
		err := r.authorize(&call{r: r, conn: conn, db: tt.db, cmd: tt.cmd, name: tt.cmd[0].Key, ctx: context.Background()})
		if (err == nil) != tt.ok {
			t.Errorf("%v on %s: %v, want ok=%v", tt.cmd, tt.db, err, tt.ok)
		}
	}
	if n := roleReads.Load(); n != 1 {
		t.Fatalf("role read %d times, want once (cached with the user)", n)
	}
}

// BenchmarkRouterAuthorize is the per-command cost of the privilege
// check for a logged-in user whose entry is cached.
func BenchmarkRouterAuthorize(b *testing.B) {
	f := newFakeUsers(b, [3]string{"rw", "test", "readWrite@test"})
	r, err := New(Options{ConfigDB: "cfg/127.0.0.1:1", Version: "7.0.0", Auth: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	r.auth.users = newUserCache(f.fetch)
	conn := command.NewConn(8, "10.0.0.5:1", "s:1")
	r.connAuthOf(conn).addUser(userRef{user: "rw", db: "test"})
	c := &call{r: r, conn: conn, db: "test", cmd: bson.D{{Key: "insert", Value: "c"}}, name: "insert", ctx: context.Background()}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if err := r.authorize(c); err != nil {
			b.Fatal(err)
		}
	}
}
