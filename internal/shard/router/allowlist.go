package router

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The router's IP allowlist (docs/security.md). A router enforces the list
// stored on the config servers (admin.system.version {_id: "ipAllowlist"},
// written by setIPAllowlist there or through any router), or its own
// configured list (net.ipAllowlist, --ipAllowlist) while none is stored.
// It reads the stored document (majority) every routerAllowlistInterval
// and after a setIPAllowlist it forwarded, so a change reaches every
// router within about that time; while the config servers cannot be read
// it keeps the policy it has. With alwaysAllowMembers, 127.0.0.1, ::1 and
// the config servers' seed hosts stay allowed. Each shard's replica set
// keeps a list of its own (set it on the shard's primary).
// serverStatus.ipAllowlist counts the refusals. With alwaysAllowMembers a
// shard lets in the routers config.mongos lists (read every minute).
//
// Invariant: refreshes are serialised (routerAllowlist.refresh); they are
// the only writers of the matcher.
const (
	routerAllowlistInterval = time.Second
	memberResolveInterval   = time.Minute // how often the config hosts' names are resolved again
	allowlistReadTimeout    = 5 * time.Second
	allowlistWarnInterval   = time.Minute
)

// routerAllowlist is the router's allowlist state.
type routerAllowlist struct {
	// m and configured are set by StartAllowlist before serving and never
	// change; m nil: the router has no allowlist.
	m          *allowlist.Matcher
	configured *allowlist.Policy
	refresh    sync.Mutex   // serialises refreshAllowlist
	lastWarn   time.Time    // REQUIRES: refresh
	members    []netip.Addr // the config hosts' addresses; REQUIRES: refresh
	resolved   time.Time    // when members were resolved; REQUIRES: refresh
}

func init() {
	localCommands["setIPAllowlist"] = handler{fn: setIPAllowlistCmd, adminOnly: true}
	localCommands["getIPAllowlist"] = handler{fn: getIPAllowlistCmd, adminOnly: true}
}

// StartAllowlist makes the router follow the stored list (over
// configured) into m, until BeginShutdown. Call it once, before serving.
func (r *Router) StartAllowlist(m *allowlist.Matcher, configured *allowlist.Policy) {
	r.allow.m, r.allow.configured = m, configured
	go func() {
		t := time.NewTicker(routerAllowlistInterval)
		defer t.Stop()
		for {
			r.refreshAllowlist(r.ctx)
			select {
			case <-t.C:
			case <-r.done:
				return
			}
		}
	}()
}

// refreshAllowlist reads the stored list and publishes the policy it gives.
func (r *Router) refreshAllowlist(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, allowlistReadTimeout)
	defer cancel()
	docs, err := r.findAuthDocs(ctx, "system.version", bson.D{{Key: "_id", Value: command.AllowlistDocID}})
	var stored *allowlist.Policy
	if err == nil && len(docs) > 0 {
		raw, merr := bson.Marshal(docs[0])
		if err = merr; err == nil {
			stored, err = command.PolicyFromStoredDoc(raw)
		}
	}
	st := &r.allow
	st.refresh.Lock()
	defer st.refresh.Unlock()
	if now := time.Now(); now.Sub(st.resolved) >= memberResolveInterval {
		st.members, st.resolved = command.ResolveHosts(r.configHosts(), r.done), now
	}
	if err != nil {
		if now := time.Now(); now.Sub(st.lastWarn) >= allowlistWarnInterval {
			st.lastWarn = now
			r.log.Warn("IP allowlist: cannot read the stored list from the config servers; keeping the current one", "err", err)
		}
		return
	}
	base := st.configured
	if stored != nil {
		base = stored
	}
	next := base.WithMembers(st.members)
	if cur := st.m.Policy(); cur.Source != next.Source || !cur.List.Equal(next.List) ||
		cur.AlwaysAllowMembers != next.AlwaysAllowMembers || fmt.Sprint(cur.Members) != fmt.Sprint(next.Members) {
		st.m.Store(next)
		r.log.Info("IP allowlist in force", "source", string(next.Source), "addresses", next.List.Strings(),
			"alwaysAllowMembers", next.AlwaysAllowMembers)
	}
}

// configHosts are the config servers' seed hosts (--configdb).
func (r *Router) configHosts() []string {
	_, seeds, err := config.ParseConfigDB(r.opts.ConfigDB)
	if err != nil {
		return nil
	}
	return seeds
}

func (r *Router) allowlistOrErr() (*routerAllowlist, error) {
	if r.allow.m == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "the IP allowlist is not available on this router")
	}
	return &r.allow, nil
}

// setIPAllowlistCmd checks the list against this client's address (the
// config servers check the router's), runs the command on the config
// servers' primary (writeConcern majority unless given) and applies the
// result here before answering.
func setIPAllowlistCmd(c *call) (bson.D, error) {
	st, err := c.r.allowlistOrErr()
	if err != nil {
		return nil, err
	}
	if err := checkRouterLockOut(c, st); err != nil {
		return nil, err
	}
	cmd := withoutField(withoutField(c.cmd, "$clusterTime"), "lsid")
	if _, ok := bsonx.Get(cmd, "writeConcern"); !ok {
		cmd = append(cmd[:len(cmd):len(cmd)], bson.E{Key: "writeConcern", Value: userWriteWC})
	}
	ctx, cancel := context.WithTimeout(c.ctx, userCmdTimeout)
	defer cancel()
	reply, err := c.r.cfg.Run(ctx, "admin", cmd, false)
	c.r.observeClusterTime(reply)
	c.r.refreshAllowlist(c.ctx) // whatever the outcome: it may have applied
	if err != nil {
		return nil, err
	}
	return replyFields(reply), nil
}

// checkRouterLockOut refuses (BadValue) a list excluding the client,
// unless force: true (useConfig: the router's configured list).
func checkRouterLockOut(c *call, st *routerAllowlist) error {
	force, _ := bsonx.Get(c.cmd, "force")
	if v, _ := bsonx.Get(c.cmd, "useConfig"); v == true {
		return command.CheckNotLockedOut(c.conn, st.configured.WithMembers(st.m.Policy().Members), force == true)
	}
	raw, _ := bsonx.Get(c.cmd, "addresses")
	a, ok := raw.(bson.A)
	if !ok {
		return nil // the config servers answer the malformed request
	}
	list, err := command.ParseAllowlistArg(&a)
	if err != nil {
		return err
	}
	always, hasAlways := bsonx.Get(c.cmd, "alwaysAllowMembers")
	p := allowlist.Policy{List: list, AlwaysAllowMembers: !hasAlways || always != false}.WithMembers(st.m.Policy().Members)
	return command.CheckNotLockedOut(c.conn, p, force == true)
}

func getIPAllowlistCmd(c *call) (bson.D, error) {
	st, err := c.r.allowlistOrErr()
	if err != nil {
		return nil, err
	}
	return command.AllowlistInfo(st.m, st.configured), nil
}
