package command

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// The IP allowlist (package allowlist, docs/security.md). setIPAllowlist
// stores {_id: "ipAllowlist", addresses, alwaysAllowMembers, updatedAt} in
// admin.system.version (where MongoDB keeps server-wide settings such as
// featureCompatibilityVersion), written through the engine like any write:
// it replicates, survives restart and honours writeConcern (default
// majority on a replica set). Every member's refresher (allowlist_refresh.go)
// publishes the policy the stored document gives, or the configured one
// (net.ipAllowlist, --ipAllowlist) while there is none, to the matcher the
// server enforces.
//
// Invariant: the matcher's policy is the stored document's (source
// "command") when one exists on this member, else the configured one;
// refreshAllowlist is the only writer and runs under allowlistState.mu.
const (
	allowlistDB        = "admin"
	allowlistColl      = "system.version"
	allowlistID        = AllowlistDocID
	maxRefusedReported = 20 // getIPAllowlist's refusedByAddress entries
)

// AllowlistDocID is the stored document's _id in admin.system.version
// (a router reads it from the config servers).
const AllowlistDocID = "ipAllowlist"

// allowlistState is the dispatcher's view of the IP allowlist.
type allowlistState struct {
	m          *allowlist.Matcher
	configured *allowlist.Policy // from net.ipAllowlist / --ipAllowlist

	// Watches of the namespaces the policy derives from: the stored
	// document (and a shard's identity) in admin.system.version, and a
	// config server's config.shards and config.mongos.
	sysVersion, shards, routers *catalog.Watch

	mu struct {
		sync.Mutex
		stored     *allowlist.Policy // the stored document's; nil: none
		storedVer  uint64            // sysVersion's version stored was read at
		storedOK   bool              // stored was read at storedVer
		cluster    []string          // the cluster hosts (memberHosts)
		clusterVer [3]uint64         // the watches' versions cluster was read at
		clusterOK  bool
		// shardRouters are, on a shard, the routers' hosts last read
		// from the config servers (allowlist_routers.go).
		shardRouters []string
		hostsKey     string       // the member hosts members was resolved from
		members      []netip.Addr // their addresses
		resolved     time.Time    // when members were resolved
		lastWarn     time.Time    // the last unreadable-list warning
	}
}

// StartAllowlist attaches the matcher the server enforces and the
// configured policy, publishes the policy in force, then keeps it current
// on a goroutine (allowlist_refresh.go) until the dispatcher shuts down.
// Call it once, before serving.
func (d *Dispatcher) StartAllowlist(m *allowlist.Matcher, configured *allowlist.Policy) {
	cat := d.eng.Catalog()
	d.allow = &allowlistState{m: m, configured: configured, sysVersion: cat.Watch(allowlistDB + "." + allowlistColl),
		shards: cat.Watch("config.shards"), routers: cat.Watch("config.mongos")}
	d.refreshAllowlist(d.allow)
	go d.runAllowlistRefresher(d.allow)
}

func (d *Dispatcher) allowlistOrErr() (*allowlistState, error) {
	if d.allow == nil {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "the IP allowlist is not available on this node")
	}
	return d.allow, nil
}

func setIPAllowlist(c *Ctx, p *request.SetIPAllowlist) (bson.D, error) {
	st, err := c.D.allowlistOrErr()
	if err != nil {
		return nil, err
	}
	force := p.Force != nil && *p.Force
	if p.UseConfig != nil && *p.UseConfig {
		if p.Addresses != nil {
			return nil, mongoerr.New(mongoerr.BadValue, "setIPAllowlist: give either addresses or useConfig: true, not both")
		}
		if err := CheckNotLockedOut(c.Conn, st.configured.WithMembers(c.D.allowlistMembers()), force); err != nil {
			return nil, err
		}
		return nil, c.D.dropStoredAllowlist()
	}
	list, err := ParseAllowlistArg(p.Addresses)
	if err != nil {
		return nil, err
	}
	always := p.AlwaysAllowMembers == nil || *p.AlwaysAllowMembers
	next := allowlist.Policy{List: list, AlwaysAllowMembers: always, Source: allowlist.SourceCommand}.WithMembers(c.D.allowlistMembers())
	if err := CheckNotLockedOut(c.Conn, next, force); err != nil {
		return nil, err
	}
	if err := c.D.storeAllowlist(list, always); err != nil {
		return nil, err
	}
	c.D.log.Info("IP allowlist set", "addresses", list.Strings(), "alwaysAllowMembers", always, "by", connRemote(c.Conn))
	c.D.refreshAllowlist(st)
	return bson.D{}, nil
}

// ParseAllowlistArg parses setIPAllowlist's addresses (BadValue naming the
// bad entry).
func ParseAllowlistArg(a *bson.A) (allowlist.List, error) {
	if a == nil {
		return allowlist.List{}, mongoerr.New(mongoerr.BadValue, "setIPAllowlist needs 'addresses' (an array of IP addresses and CIDR blocks; [] allows every address) or useConfig: true")
	}
	entries := make([]string, len(*a))
	for i, v := range *a {
		s, ok := v.(string)
		if !ok {
			return allowlist.List{}, mongoerr.New(mongoerr.BadValue, "IP allowlist entry %d must be a string, not %s", i, bsonx.TypeAlias(v))
		}
		entries[i] = s
	}
	l, err := allowlist.Parse(entries)
	if err != nil {
		return allowlist.List{}, mongoerr.New(mongoerr.BadValue, "%v", err)
	}
	return l, nil
}

// CheckNotLockedOut refuses a policy that would exclude the connection
// issuing the command, unless forced.
func CheckNotLockedOut(conn *Conn, p *allowlist.Policy, force bool) error {
	a, ok := connAddr(conn)
	if force || !ok || p.Allows(a) {
		return nil
	}
	return mongoerr.New(mongoerr.BadValue,
		"the new IP allowlist would exclude this connection's address %s; add it, or pass force: true to apply the list anyway", a)
}

func connRemote(conn *Conn) string {
	if conn == nil {
		return ""
	}
	return conn.Remote
}

// connAddr returns the IP the connection comes from (false when unknown).
func connAddr(conn *Conn) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(connRemote(conn))
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// storeAllowlist upserts the stored document.
func (d *Dispatcher) storeAllowlist(l allowlist.List, always bool) error {
	addrs := bson.A{}
	for _, s := range l.Strings() {
		addrs = append(addrs, s)
	}
	set := bson.D{{Key: "addresses", Value: addrs}, {Key: "alwaysAllowMembers", Value: always},
		{Key: "updatedAt", Value: bson.NewDateTimeFromTime(time.Now())}}
	stmt := exec.UpdateStmt{Q: bson.D{{Key: "_id", Value: allowlistID}}, U: bson.D{{Key: "$set", Value: set}}, Upsert: true}
	return writeErr(d.eng.Update(allowlistDB, allowlistColl, []exec.UpdateStmt{stmt}, true, nil, nil))
}

// dropStoredAllowlist deletes the stored document: the configured list
// applies again.
func (d *Dispatcher) dropStoredAllowlist() error {
	stmt := exec.DeleteStmt{Q: bson.D{{Key: "_id", Value: allowlistID}}, Limit: 1}
	if err := writeErr(d.eng.Delete(allowlistDB, allowlistColl, []exec.DeleteStmt{stmt}, true, nil, nil)); err != nil {
		return err
	}
	d.log.Info("IP allowlist document removed; the configured list applies")
	d.refreshAllowlist(d.allow)
	return nil
}

func getIPAllowlist(c *Ctx, _ *request.GetIPAllowlist) (bson.D, error) {
	st, err := c.D.allowlistOrErr()
	if err != nil {
		return nil, err
	}
	return AllowlistInfo(st.m, st.configured), nil
}

// AllowlistInfo is getIPAllowlist's reply for m and the configured policy
// (a data node's and a router's).
func AllowlistInfo(m *allowlist.Matcher, configured *allowlist.Policy) bson.D {
	p, stats := m.Policy(), m.Stats(maxRefusedReported)
	byAddr := bson.A{}
	for _, a := range stats.ByAddr {
		byAddr = append(byAddr, bson.D{{Key: "address", Value: a.Addr}, {Key: "count", Value: a.Count}})
	}
	return bson.D{
		{Key: "addresses", Value: stringsA(p.List.Strings())},
		{Key: "alwaysAllowMembers", Value: p.AlwaysAllowMembers},
		{Key: "source", Value: string(p.Source)},
		{Key: "configuredAddresses", Value: stringsA(configured.List.Strings())},
		{Key: "members", Value: addrsA(p.Members)},
		{Key: "refusedConnections", Value: stats.Refused},
		{Key: "closedConnections", Value: stats.Closed},
		{Key: "refusedByAddress", Value: byAddr},
	}
}

// allowlistStatus is serverStatus's ipAllowlist section (none without one).
func (d *Dispatcher) allowlistStatus() bson.D {
	if d.allow == nil {
		return nil
	}
	return AllowlistStatus(d.allow.m)
}

// AllowlistStatus is serverStatus's ipAllowlist section for m (a data
// node's and a router's); nil for a nil m.
func AllowlistStatus(m *allowlist.Matcher) bson.D {
	if m == nil {
		return nil
	}
	p, stats := m.Policy(), m.Stats(0)
	return bson.D{{Key: "ipAllowlist", Value: bson.D{
		{Key: "source", Value: string(p.Source)},
		{Key: "entries", Value: int64(p.List.Len())},
		{Key: "refusedConnections", Value: stats.Refused},
		{Key: "closedConnections", Value: stats.Closed},
	}}}
}

func stringsA(ss []string) bson.A {
	out := bson.A{}
	for _, s := range ss {
		out = append(out, s)
	}
	return out
}

func addrsA(as []netip.Addr) bson.A {
	out := bson.A{}
	for _, a := range as {
		out = append(out, a.String())
	}
	return out
}

// PolicyFromStoredDoc reads the stored document.
func PolicyFromStoredDoc(doc bson.Raw) (*allowlist.Policy, error) {
	arr, ok := doc.Lookup("addresses").ArrayOK()
	if !ok {
		return nil, fmt.Errorf("%s.%s %q: addresses is not an array", allowlistDB, allowlistColl, allowlistID)
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, fmt.Errorf("%s.%s %q: %w", allowlistDB, allowlistColl, allowlistID, err)
	}
	entries := make([]string, len(vals))
	for i, v := range vals {
		entries[i], _ = v.StringValueOK()
	}
	l, err := allowlist.Parse(entries)
	if err != nil {
		return nil, fmt.Errorf("%s.%s %q: %w", allowlistDB, allowlistColl, allowlistID, err)
	}
	always, ok := doc.Lookup("alwaysAllowMembers").BooleanOK()
	return &allowlist.Policy{List: l, AlwaysAllowMembers: always || !ok, Source: allowlist.SourceCommand}, nil
}
