package auth

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestRestrictions(t *testing.T) {
	rs, err := ParseRestrictions(bson.A{
		bson.D{{Key: "clientSource", Value: bson.A{"10.0.0.0/8"}}, {Key: "serverAddress", Value: bson.A{"10.1.1.1"}}},
		bson.D{{Key: "clientSource", Value: bson.A{"192.168.1.5", "fd00::/8"}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		client, server string
		want           bool
	}{
		{"10.2.3.4", "10.1.1.1", true},        // first document
		{"10.2.3.4", "10.1.1.2", false},       // first's server address fails, second's client fails
		{"192.168.1.5", "127.0.0.1", true},    // second: any server
		{"fd00::1", "::1", true},              // IPv6 block
		{"192.168.1.6", "10.1.1.1", false},    // neither
		{"::ffff:10.0.0.1", "10.1.1.1", true}, // v4-mapped client
	} {
		if got := rs.Allows(netip.MustParseAddr(tc.client).Unmap(), netip.MustParseAddr(tc.server)); got != tc.want {
			t.Errorf("client %s server %s: %v, want %v", tc.client, tc.server, got, tc.want)
		}
	}
	if !(Restrictions{}).Allows(netip.Addr{}, netip.Addr{}) {
		t.Error("no restrictions refused a login")
	}
	if (Restrictions{{}}).Allows(netip.Addr{}, netip.Addr{}) != true {
		t.Error("an empty restriction document restricts nothing, as MongoDB's")
	}
}

func TestParseRestrictionsErrors(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{"10.0.0.1", "must be an array"},
		{bson.A{"x"}, "entry 0 must be a document"},
		{bson.A{bson.D{{Key: "clientSource", Value: "10.0.0.1"}}}, "'clientSource' must be an array"},
		{bson.A{bson.D{{Key: "clientSource", Value: bson.A{"10.0.0.300"}}}}, `'clientSource' entry 0 "10.0.0.300" is not an IP address or CIDR range`},
		{bson.A{bson.D{{Key: "serverAddress", Value: bson.A{int32(1)}}}}, "'serverAddress' entry 0 must be a string"},
		{bson.A{bson.D{{Key: "clientIP", Value: bson.A{}}}}, "Unknown authentication restriction field: clientIP"},
	} {
		_, err := ParseRestrictions(tc.v)
		if e := mongoerr.From(err); err == nil || e.Code != mongoerr.BadValue || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want BadValue %q", tc.v, err, tc.want)
		}
	}
}

func TestCheckRestrictions(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{{Key: "r", Value: bson.A{bson.D{{Key: "clientSource", Value: bson.A{"127.0.0.2"}}}}}})
	stored := bson.Raw(raw).Lookup("r")
	if err := CheckRestrictions(stored, "127.0.0.2:5000", "127.0.0.1:27017"); err != nil {
		t.Errorf("allowed client refused: %v", err)
	}
	err := CheckRestrictions(stored, "127.0.0.3:5000", "127.0.0.1:27017")
	if !errors.Is(err, ErrAuthFailed) || !strings.Contains(err.Error(), "127.0.0.3:5000") {
		t.Errorf("client outside the restrictions: %v", err)
	}
	if err := CheckRestrictions(bson.RawValue{}, "x", "y"); err != nil {
		t.Errorf("no stored restrictions: %v", err)
	}
}
