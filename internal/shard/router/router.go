package router

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
)

// Options configure a Router.
type Options struct {
	// ConfigDB is the config server replica set, "setName/h:p,...".
	ConfigDB  string
	Version   string // MongoDB version claimed (buildInfo, serverStatus)
	GitCommit string
	// Shutdown asks the process to stop (the shutdown command); may be nil.
	Shutdown func()
	Logger   *slog.Logger
	// Pool is the node-to-node client; nil makes one (closed by Close).
	Pool *netclient.Pool
	// Auth makes clients authenticate and checks every command's
	// privileges (auth.go); --keyFile implies it.
	Auth bool
	// Credential logs the router's own pool in to the cluster's members
	// (__system with the key file); nil: no member authentication.
	Credential *netclient.Credential
	// TLS makes the router's own pool dial members with TLS (net.tls
	// preferTLS or requireTLS); nil: plain.
	TLS *tls.Config
	// UserCacheInvalidationIntervalSecs is how often the user cache
	// generation is polled with auth on (user_cache_gen.go); 0: 30.
	UserCacheInvalidationIntervalSecs int64
	// AuthMechanisms are the mechanisms clients may log in with
	// (authenticationMechanisms); nil: every supported one.
	AuthMechanisms auth.Mechanisms
}

// maxIdlePerShardHost keeps enough idle connections to a shard primary for
// a busy router's concurrent requests (netclient's default, 4, suits
// replication's few streams).
const maxIdlePerShardHost = 64

// Router routes client commands to shards. It is safe for concurrent use.
type Router struct {
	opts     Options
	log      *slog.Logger
	pool     *netclient.Pool
	ownPool  bool
	cfg      *replSet // the config server replica set
	cfgName  string
	meta     *configsvr.Catalog
	cursors  *cursorTable
	merged   *mergedCursors // router cursors over several shards (mergecursor.go)
	catalog  *catalogCache  // routing tables of sharded collections
	txns     *txnTable
	start    time.Time
	ctx      context.Context // cancelled by Close: ends shard calls
	cancel   context.CancelFunc
	done     chan struct{} // closed by BeginShutdown: wakes awaitable hellos
	stopOnce sync.Once

	failCommand   failPoint
	getMoreFail   getMorePoint   // failGetMoreAfterCursorCheckout (failpoint_getmore.go)
	auth          authState      // auth.go
	loginThrottle *auth.Throttle // slows repeated failed logins (auth_sasl.go)
	appNames      sync.Map       // *command.Conn -> client.application.name from hello
	rawVersions   sync.Map       // database -> *dbVersionElems, "db.coll" -> *collVersionElems (rawforward.go)

	allow routerAllowlist // the IP allowlist (allowlist.go)

	ctMu        sync.Mutex
	clusterTime bson.D // newest $clusterTime seen (clustertime.go); REQUIRES: ctMu
	stats       stats

	mu struct {
		sync.Mutex
		shards map[string]*replSet           // by shard _id, from config.shards
		dbs    map[string]configsvr.Database // cache of config.databases
	}
}

// stats are serverStatus's counters.
type stats struct {
	connCurrent, connTotal atomic.Int64
	commands, forwarded    atomic.Int64
	failed                 atomic.Int64
}

// New returns a router for the config servers in opts.ConfigDB. It does
// not contact them until a command needs metadata.
func New(opts Options) (*Router, error) {
	name, seeds, err := config.ParseConfigDB(opts.ConfigDB)
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	r := &Router{opts: opts, log: opts.Logger, pool: opts.Pool, cfgName: name,
		cursors: newCursorTable(), txns: newTxnTable(), start: time.Now(), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	if r.pool == nil {
		r.pool, r.ownPool = netclient.NewPool(netclient.Options{Logger: opts.Logger, MaxIdle: maxIdlePerShardHost, Auth: opts.Credential, TLS: opts.TLS}), true
	}
	r.cfg = newReplSet(name, seeds, r.pool)
	r.meta = configsvr.NewCatalog(configRunner{r})
	r.catalog = newCatalogCache(r.meta)
	r.merged = newMergedCursors()
	r.mu.shards = map[string]*replSet{}
	r.mu.dbs = map[string]configsvr.Database{}
	r.auth.on, r.auth.users, r.loginThrottle = opts.Auth, newUserCache(r.fetchUser), auth.NewThrottle()
	r.auth.users.fetchRole, r.auth.users.log = r.fetchRole, r.log.Warn
	if err := r.startUserCacheInvalidator(opts.UserCacheInvalidationIntervalSecs); err != nil { // user_cache_gen.go
		r.cancel()
		return nil, err
	}
	go r.learnClusterTime()
	return r, nil
}

// configRunner runs metadata commands on the config server primary; they
// are reads or idempotent inserts (an _id collision is detected), so a
// network failure may be retried.
type configRunner struct{ r *Router }

func (c configRunner) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	reply, err := c.r.cfg.Run(ctx, db, configsvr.Clock.Pin(db, cmd), true)
	c.r.observeClusterTime(reply)
	configsvr.Clock.Observe(reply)
	return reply, err
}

// BeginShutdown wakes waiting hellos; Close releases connections.
func (r *Router) BeginShutdown() { r.stopOnce.Do(func() { close(r.done) }) }

// Close closes the router's pool if it made it.
func (r *Router) Close() {
	r.BeginShutdown()
	r.cancel()
	if r.ownPool {
		r.pool.Close()
	}
}

// ConnOpened and ConnClosed count client connections (server.Handler).
func (r *Router) ConnOpened() { r.stats.connCurrent.Add(1); r.stats.connTotal.Add(1) }

// ConnClosed is called when a client connection ends.
func (r *Router) ConnClosed(c *command.Conn) {
	r.stats.connCurrent.Add(-1)
	r.appNames.Delete(c)
	r.auth.conns.Delete(c)
}

// Handle runs one OP_MSG request and returns the encoded reply document.
// A CRUD command that needs no decoding is forwarded as bytes
// (rawforward.go); everything else is decoded.
func (r *Router) Handle(conn *command.Conn, req *command.Request) []byte {
	reply, done, fp, checked := r.serveRaw(conn, req)
	if done {
		return reply
	}
	db, cmd, err := command.DecodeMsg(req)
	if err != nil {
		return r.ErrorReply(err)
	}
	return r.run(conn, db, withoutField(cmd, "$db"), req, failCheck{fp: fp, done: checked})
}

// failCheck is a failCommand lookup already made for a request (done),
// with its activation (nil: the fail point does not apply).
type failCheck struct {
	fp   *activation
	done bool
}

// HandleLegacy answers the OP_QUERY handshake (hello, isMaster) drivers
// may open with; anything else is refused as mongos does.
func (r *Router) HandleLegacy(conn *command.Conn, fullName string, query []byte) []byte {
	db, cmd, err := command.DecodeLegacy(fullName, query)
	if err != nil {
		return r.ErrorReply(err)
	}
	return r.run(conn, db, cmd, nil, failCheck{})
}

func (r *Router) run(conn *command.Conn, db string, cmd bson.D, req *command.Request, fc failCheck) []byte {
	if len(cmd) == 0 {
		return r.ErrorReply(mongoerr.New(mongoerr.FailedToParse, "Empty command object"))
	}
	r.stats.commands.Add(1)
	reply, err := r.invoke(conn, db, cmd, req, fc)
	if err != nil {
		r.stats.failed.Add(1)
		return r.ErrorReply(err)
	}
	reply = command.LabelRetryableWCE(cmdName(cmd), cmd, reply)
	b, err := bsonx.Encode(reply)
	if err != nil {
		return r.ErrorReply(fmt.Errorf("encoding the %s reply: %w", cmdName(cmd), err))
	}
	return b
}

// invoke runs a router command or forwards cmd; the reply carries ok.
func (r *Router) invoke(conn *command.Conn, db string, cmd bson.D, req *command.Request, fc failCheck) (reply bson.D, err error) {
	defer func() {
		if p := recover(); p != nil {
			r.log.Error("command panicked", "command", cmdName(cmd), "panic", p, "stack", string(debug.Stack()))
			reply, err = nil, mongoerr.New(mongoerr.InternalError, "internal error in %s: %v", cmdName(cmd), p)
		}
	}()
	cmd = canonicalCmd(cmd) // aliases.go
	c := &call{r: r, conn: conn, db: db, cmd: cmd, name: cmdName(cmd), ctx: r.ctx}
	if err := r.authorize(c); err != nil { // auth.go: before anything runs
		return nil, err
	}
	if err := command.CheckAPIParams(c.name, cmd); err != nil { // the Stable API, as on a data node
		return nil, err
	}
	fp := fc.fp
	if !fc.done {
		fp = r.failCommand.check(c.name, handshakeAppName(c.name, cmd, r.appName(conn)))
	}
	if fp != nil {
		if err := fp.before(req); err != nil {
			return nil, command.WithTxnLabels(c.name, cmd, err)
		}
	}
	if h, ok := localCommands[c.name]; ok {
		if h.adminOnly && db != "admin" {
			return nil, mongoerr.New(mongoerr.Unauthorized, "%s may only be run against the admin database.", c.name)
		}
		out, err := h.fn(c)
		if err != nil {
			return nil, err
		}
		reply = r.gossip(append(out, bson.E{Key: "ok", Value: 1.0}))
	} else {
		r.stats.forwarded.Add(1)
		if reply, err = r.forward(c); err != nil {
			return nil, err
		}
		if reply, err = r.rerunResolvedView(c, reply); err != nil { // views.go
			return nil, err
		}
		r.observeClusterTime(reply)
	}
	if c.name != "getMore" {
		r.ownCursor(conn, cursorID(reply)) // cursor_owner.go
	}
	if fp != nil {
		reply = fp.after(reply)
	}
	return reply, nil
}

// appName is the client's application name from its first hello.
func (r *Router) appName(conn *command.Conn) string {
	v, _ := r.appNames.Load(conn)
	s, _ := v.(string)
	return s
}

// call is one command being served.
type call struct {
	r    *Router
	conn *command.Conn
	db   string
	cmd  bson.D
	name string
	ctx  context.Context
}

// ErrorReply encodes err as {ok: 0, errmsg, code, codeName[, errorLabels]}.
func (r *Router) ErrorReply(err error) []byte {
	b, _ := bsonx.Encode(command.ErrorDoc(err))
	return b
}

// withoutField returns cmd without its key fields (a copy when found).
func withoutField(cmd bson.D, key string) bson.D {
	for i, e := range cmd {
		if e.Key == key {
			out := make(bson.D, 0, len(cmd)-1)
			return append(append(out, cmd[:i]...), cmd[i+1:]...)
		}
	}
	return cmd
}
