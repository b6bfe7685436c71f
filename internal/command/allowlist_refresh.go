package command

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/exec"
)

// How the allowlist follows changes it did not make itself: a stored
// document written or removed by replication (applier, rollback, initial
// sync) and membership changes (reconfig, addShard, a router's first
// report) are picked up by a refresher every allowlistRefreshInterval, so
// a replicated change takes effect within about that time (and the server
// closes the connections it excludes at once). A tick costs a few atomic
// loads and the replica set config: the stored document and the cluster's
// hosts are re-read only when their catalog watches moved.
const (
	allowlistRefreshInterval = 250 * time.Millisecond
	maxMemberHosts           = 1000            // hosts resolved per refresh
	memberLookupBudget       = 5 * time.Second // DNS time per resolution of the members
	memberResolveInterval    = time.Minute     // members' names are resolved again this often
	maxClusterDocs           = 1000            // config.shards / config.mongos read
	allowlistWarnInterval    = time.Minute     // at most one unreadable-list warning per interval
)

// runAllowlistRefresher refreshes the policy until the dispatcher shuts
// down.
func (d *Dispatcher) runAllowlistRefresher(st *allowlistState) {
	t := time.NewTicker(allowlistRefreshInterval)
	defer t.Stop()
	var routersAt time.Time // when a shard reads the routers next
	for {
		select {
		case <-t.C:
			d.refreshShardRouters(st, &routersAt)
			d.refreshAllowlist(st)
		case <-d.done:
			return
		}
	}
}

// refreshAllowlist publishes the policy of the stored document (or the
// configured one) with the current members, when it differs.
func (d *Dispatcher) refreshAllowlist(st *allowlistState) {
	st.mu.Lock()
	defer st.mu.Unlock()
	stored, err := d.storedLocked(st)
	if err != nil {
		if now := time.Now(); now.Sub(st.mu.lastWarn) >= allowlistWarnInterval {
			st.mu.lastWarn = now
			d.log.Warn("IP allowlist: the stored list is unreadable; keeping the current one", "err", err)
		}
		return
	}
	base := st.configured
	if stored != nil {
		base = stored
	}
	next := base.WithMembers(d.membersLocked(st))
	if cur := st.m.Policy(); !samePolicy(cur, next) {
		st.m.Store(next)
		if next.List.Empty() && cur.List.Empty() {
			return // membership changed, nothing restricted: not worth a log line
		}
		d.log.Info("IP allowlist in force", "source", string(next.Source), "addresses", next.List.Strings(),
			"alwaysAllowMembers", next.AlwaysAllowMembers, "members", len(next.Members))
	}
}

func samePolicy(a, b *allowlist.Policy) bool {
	return a.Source == b.Source && a.AlwaysAllowMembers == b.AlwaysAllowMembers &&
		a.List.Equal(b.List) && slices.Equal(a.Members, b.Members)
}

// storedLocked returns the stored document's policy (nil when there is
// none), re-read only when admin.system.version changed. REQUIRES: st.mu.
func (d *Dispatcher) storedLocked(st *allowlistState) (*allowlist.Policy, error) {
	v := st.sysVersion.Version() // before the read: a later change moves it
	if st.mu.storedOK && v == st.mu.storedVer {
		return st.mu.stored, nil
	}
	doc, err := d.findOne(allowlistDB, allowlistColl, bson.D{{Key: "_id", Value: allowlistID}})
	if err != nil {
		return nil, err
	}
	var p *allowlist.Policy
	if doc != nil {
		if p, err = PolicyFromStoredDoc(doc); err != nil {
			return nil, err
		}
	}
	st.mu.stored, st.mu.storedVer, st.mu.storedOK = p, v, true
	return p, nil
}

// findOne returns a copy of the first document filter matches, or nil.
func (d *Dispatcher) findOne(db, coll string, filter bson.D) (bson.Raw, error) {
	docs, err := d.findDocs(db, coll, filter, 1)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return docs[0], nil
}

// findDocs returns copies of at most limit documents filter matches.
func (d *Dispatcher) findDocs(db, coll string, filter bson.D, limit int64) ([]bson.Raw, error) {
	it, _, err := d.eng.Find(db, coll, exec.FindParams{Filter: filter, Limit: limit})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []bson.Raw
	for r, ok := it.Next(); ok; r, ok = it.Next() {
		b, err := r.Bytes()
		if err != nil {
			return nil, err
		}
		out = append(out, bson.Raw(append([]byte(nil), b...)))
	}
	return out, it.Err()
}

// allowlistMembers returns the current members' addresses (for
// setIPAllowlist's lock-out check).
func (d *Dispatcher) allowlistMembers() []netip.Addr {
	st := d.allow // setIPAllowlist checked it is set
	st.mu.Lock()
	defer st.mu.Unlock()
	return d.membersLocked(st)
}

// membersLocked returns the addresses of memberHosts, resolving them again
// when the host list changed or memberResolveInterval passed.
// REQUIRES: st.mu.
func (d *Dispatcher) membersLocked(st *allowlistState) []netip.Addr {
	hosts := d.memberHosts(st)
	key, now := strings.Join(hosts, ","), time.Now()
	if key == st.mu.hostsKey && now.Sub(st.mu.resolved) < memberResolveInterval {
		return st.mu.members
	}
	st.mu.hostsKey, st.mu.members, st.mu.resolved = key, ResolveHosts(hosts, d.done), now
	return st.mu.members
}

// memberHosts returns, sorted, the host:port of the replica set's members
// and of the cluster nodes this member knows cheaply: on a shard the config
// servers (its shardIdentity), on a config server every shard's hosts
// (config.shards) and the routers (config.mongos); a shard also lets in
// the routers it last read from the config servers (allowlist_routers.go).
// REQUIRES: st.mu.
func (d *Dispatcher) memberHosts(st *allowlistState) []string {
	var hosts []string
	if d.repl != nil {
		if cfg, err := d.repl.ReplSetGetConfig(); err == nil {
			hosts = append(hosts, docHosts(cfg, "config", "members")...)
		}
	}
	hosts = append(hosts, d.clusterHostsLocked(st)...)
	slices.Sort(hosts)
	hosts = slices.Compact(hosts)
	return hosts[:min(len(hosts), maxMemberHosts)]
}

// clusterHostsLocked returns the cluster nodes' hosts, re-read only when
// their collections changed. REQUIRES: st.mu.
func (d *Dispatcher) clusterHostsLocked(st *allowlistState) []string {
	v := [3]uint64{st.sysVersion.Version(), st.shards.Version(), st.routers.Version()}
	if st.mu.clusterOK && v == st.mu.clusterVer {
		return st.mu.cluster
	}
	var hosts []string
	switch d.info.ClusterRole {
	case "shardsvr":
		if id, _ := d.findOne("admin", "system.version", bson.D{{Key: "_id", Value: "shardIdentity"}}); id != nil {
			s, _ := id.Lookup("configsvrConnectionString").StringValueOK()
			hosts = append(hosts, splitConnString(s)...)
		}
		hosts = append(hosts, st.mu.shardRouters...)
	case "configsvr":
		shards, _ := d.findDocs("config", "shards", nil, maxClusterDocs)
		for _, s := range shards {
			h, _ := s.Lookup("host").StringValueOK()
			hosts = append(hosts, splitConnString(h)...)
		}
		routers, _ := d.findDocs("config", "mongos", nil, maxClusterDocs)
		for _, r := range routers {
			h, _ := r.Lookup("_id").StringValueOK()
			hosts = append(hosts, h)
		}
	}
	st.mu.cluster, st.mu.clusterVer, st.mu.clusterOK = hosts, v, true
	return hosts
}

// docHosts returns the host fields of the member documents at path in d.
func docHosts(d bson.D, path ...string) []string {
	raw, err := bson.Marshal(d)
	if err != nil {
		return nil
	}
	arr, ok := bson.Raw(raw).Lookup(path...).ArrayOK()
	if !ok {
		return nil
	}
	vals, _ := arr.Values()
	var out []string
	for _, v := range vals {
		if m, ok := v.DocumentOK(); ok {
			if h, ok := m.Lookup("host").StringValueOK(); ok {
				out = append(out, h)
			}
		}
	}
	return out
}

// splitConnString splits "set/h1:p,h2:p" (or "h1:p,h2:p") into hosts.
func splitConnString(s string) []string {
	if _, list, ok := strings.Cut(s, "/"); ok {
		s = list
	}
	var out []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// ResolveHosts returns the addresses of host:port entries: IP literals as
// they are, names through DNS within memberLookupBudget in all.
func ResolveHosts(hosts []string, done <-chan struct{}) []netip.Addr {
	ctx, cancel := context.WithTimeout(context.Background(), memberLookupBudget)
	defer cancel()
	go func() {
		select {
		case <-done:
			cancel()
		case <-ctx.Done():
		}
	}()
	var out []netip.Addr
	for _, hp := range hosts {
		h, _, err := net.SplitHostPort(hp)
		if err != nil {
			h = hp
		}
		if a, err := netip.ParseAddr(h); err == nil {
			out = append(out, a.Unmap())
			continue
		}
		if addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", h); err == nil {
			out = append(out, addrs...)
		}
	}
	return out
}
