package command

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestParseAllowlistArg(t *testing.T) {
	for _, tc := range []struct {
		arg     *bson.A
		want    []string
		wantErr string
	}{
		{arg: &bson.A{"127.0.0.3", "10.0.0.0/8"}, want: []string{"10.0.0.0/8", "127.0.0.3"}},
		{arg: &bson.A{}, want: []string{}},
		{arg: nil, wantErr: "needs 'addresses'"},
		{arg: &bson.A{"127.0.0.1", int32(5)}, wantErr: "entry 1 must be a string, not int"},
		{arg: &bson.A{"127.0.0.1", "300.0.0.1"}, wantErr: `entry 1 "300.0.0.1" is invalid`},
	} {
		l, err := ParseAllowlistArg(tc.arg)
		if tc.wantErr != "" {
			if e := mongoerr.From(err); err == nil || e.Code != mongoerr.BadValue || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want BadValue %q", tc.arg, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(l.Strings(), tc.want) {
			t.Errorf("%v: %q, %v", tc.arg, l.Strings(), err)
		}
	}
}

func TestCheckNotLockedOut(t *testing.T) {
	p := &allowlist.Policy{List: allowlist.MustParse("127.0.0.3"), AlwaysAllowMembers: true}
	from := func(addr string) *Conn { return NewConn(1, addr, "127.0.0.1:27017") }
	if err := CheckNotLockedOut(from("127.0.0.2:5000"), p, false); mongoerr.From(err).Code != mongoerr.BadValue ||
		!strings.Contains(err.Error(), "127.0.0.2") {
		t.Fatalf("lock-out not refused: %v", err)
	}
	for _, ok := range []struct {
		conn  *Conn
		force bool
	}{{from("127.0.0.2:5000"), true}, {from("127.0.0.3:5000"), false}, {from("127.0.0.1:5000"), false}, {from(""), false}} {
		if err := CheckNotLockedOut(ok.conn, p, ok.force); err != nil {
			t.Errorf("%+v refused: %v", ok, err)
		}
	}
}

func TestPolicyFromDoc(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: allowlistID}, {Key: "addresses", Value: bson.A{"10.0.0.0/8"}}, {Key: "alwaysAllowMembers", Value: false}})
	p, err := PolicyFromStoredDoc(raw)
	if err != nil || p.AlwaysAllowMembers || p.Source != allowlist.SourceCommand || !p.Allows(netip.MustParseAddr("10.1.1.1")) {
		t.Fatalf("policy %+v, %v", p, err)
	}
	raw, _ = bson.Marshal(bson.D{{Key: "addresses", Value: "10.0.0.1"}})
	if _, err := PolicyFromStoredDoc(raw); err == nil {
		t.Fatal("a malformed stored document was accepted")
	}
}

func TestMemberHostsHelpers(t *testing.T) {
	cfg := bson.D{{Key: "config", Value: bson.D{{Key: "members", Value: bson.A{
		bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: "127.0.0.1:27017"}},
		bson.D{{Key: "_id", Value: 1}, {Key: "host", Value: "[::1]:27018"}},
	}}}}}
	hosts := docHosts(cfg, "config", "members")
	if !slices.Equal(hosts, []string{"127.0.0.1:27017", "[::1]:27018"}) {
		t.Fatalf("hosts %q", hosts)
	}
	if got := splitConnString("cfg/a:1, b:2"); !slices.Equal(got, []string{"a:1", "b:2"}) {
		t.Fatalf("split %q", got)
	}
	addrs := ResolveHosts(append(hosts, "10.0.0.9"), make(chan struct{}))
	if want := []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1"), netip.MustParseAddr("10.0.0.9")}; !slices.Equal(addrs, want) {
		t.Fatalf("resolved %v, want %v", addrs, want)
	}
}

// A config server's members include every shard's hosts and the routers;
// a shard's, its config servers; the stored document overrides the
// configured list and its removal brings that back, changes picked up by
// the catalog watches.
func TestAllowlistRefreshFollowsCatalog(t *testing.T) {
	for _, tc := range []struct {
		role string
		docs map[string][]bson.D // collection ("db.coll") -> documents
		want []string
	}{
		{"configsvr", map[string][]bson.D{
			"config.shards": {{{Key: "_id", Value: "sh1"}, {Key: "host", Value: "sh1/127.0.0.5:1,127.0.0.6:2"}}},
			"config.mongos": {{{Key: "_id", Value: "127.0.0.7:3"}}},
		}, []string{"127.0.0.5", "127.0.0.6", "127.0.0.7"}},
		{"shardsvr", map[string][]bson.D{
			"admin.system.version": {{{Key: "_id", Value: "shardIdentity"}, {Key: "configsvrConnectionString", Value: "cfg/127.0.0.8:1"}}},
		}, []string{"127.0.0.8"}},
	} {
		t.Run(tc.role, func(t *testing.T) {
			d, _, _ := newReadTestDispatcher(t, nil)
			d.info.ClusterRole = tc.role
			configured := &allowlist.Policy{List: allowlist.MustParse("10.0.0.1"), AlwaysAllowMembers: true, Source: allowlist.SourceConfig}
			m := allowlist.NewMatcher(configured)
			d.StartAllowlist(m, configured)
			t.Cleanup(d.BeginShutdown)
			for ns, docs := range tc.docs {
				db, coll, _ := strings.Cut(ns, ".")
				if err := writeErr(d.eng.Insert(db, coll, docs, true, nil)); err != nil {
					t.Fatal(err)
				}
			}
			d.refreshAllowlist(d.allow)
			if got := fmt.Sprint(m.Policy().Members); got != fmt.Sprint(tc.want) {
				t.Fatalf("members %s, want %v", got, tc.want)
			}
			if err := d.storeAllowlist(allowlist.MustParse("127.0.0.3"), false); err != nil {
				t.Fatal(err)
			}
			d.refreshAllowlist(d.allow)
			if p := m.Policy(); p.Source != allowlist.SourceCommand || p.AlwaysAllowMembers || fmt.Sprint(p.List.Strings()) != "[127.0.0.3]" {
				t.Fatalf("after store: %+v", p)
			}
			if err := d.dropStoredAllowlist(); err != nil {
				t.Fatal(err)
			}
			if p := m.Policy(); p.Source != allowlist.SourceConfig || !p.List.Equal(configured.List) {
				t.Fatalf("after drop: %+v", p)
			}
		})
	}
}
