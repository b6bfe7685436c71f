package command

import (
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
		l, err := parseAllowlistArg(tc.arg)
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
	if err := checkNotLockedOut(from("127.0.0.2:5000"), p, false); mongoerr.From(err).Code != mongoerr.BadValue ||
		!strings.Contains(err.Error(), "127.0.0.2") {
		t.Fatalf("lock-out not refused: %v", err)
	}
	for _, ok := range []struct {
		conn  *Conn
		force bool
	}{{from("127.0.0.2:5000"), true}, {from("127.0.0.3:5000"), false}, {from("127.0.0.1:5000"), false}, {from(""), false}} {
		if err := checkNotLockedOut(ok.conn, p, ok.force); err != nil {
			t.Errorf("%+v refused: %v", ok, err)
		}
	}
}

func TestPolicyFromDoc(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{{Key: "_id", Value: allowlistID}, {Key: "addresses", Value: bson.A{"10.0.0.0/8"}}, {Key: "alwaysAllowMembers", Value: false}})
	p, err := policyFromDoc(raw)
	if err != nil || p.AlwaysAllowMembers || p.Source != allowlist.SourceCommand || !p.Allows(netip.MustParseAddr("10.1.1.1")) {
		t.Fatalf("policy %+v, %v", p, err)
	}
	raw, _ = bson.Marshal(bson.D{{Key: "addresses", Value: "10.0.0.1"}})
	if _, err := policyFromDoc(raw); err == nil {
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
	addrs := resolveHosts(append(hosts, "10.0.0.9"), make(chan struct{}))
	if want := []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1"), netip.MustParseAddr("10.0.0.9")}; !slices.Equal(addrs, want) {
		t.Fatalf("resolved %v, want %v", addrs, want)
	}
}
