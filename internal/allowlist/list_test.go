package allowlist

import (
	"errors"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string // canonical; nil with bad set
		bad  int      // index of the bad entry, -1 for none
		why  string   // substring of the reason
	}{
		{in: nil, want: []string{}, bad: -1},
		{in: []string{"127.0.0.1"}, want: []string{"127.0.0.1"}, bad: -1},
		{in: []string{"10.0.0.0/8", "127.0.0.3", "10.0.0.0/8"}, want: []string{"10.0.0.0/8", "127.0.0.3"}, bad: -1},
		{in: []string{"127.0.0.1/32"}, want: []string{"127.0.0.1"}, bad: -1},
		{in: []string{"::1", "fd00::/8"}, want: []string{"::1", "fd00::/8"}, bad: -1},
		{in: []string{"::ffff:10.1.2.3"}, want: []string{"10.1.2.3"}, bad: -1},
		{in: []string{"::ffff:10.1.0.0/112"}, want: []string{"10.1.0.0/16"}, bad: -1},
		{in: []string{"0.0.0.0/0"}, want: []string{"0.0.0.0/0"}, bad: -1},
		{in: []string{"127.0.0.1", ""}, bad: 1, why: "empty"},
		{in: []string{"localhost"}, bad: 0, why: "hostnames"},
		{in: []string{"10.0.0.1/8"}, bad: 0, why: "did you mean 10.0.0.0/8"},
		{in: []string{"10.0.0.0/33"}, bad: 0, why: "CIDR"},
		{in: []string{" 10.0.0.1"}, bad: 0, why: "space"},
		{in: []string{"fe80::1%eth0"}, bad: 0, why: "zones"},
		{in: []string{"::ffff:10.0.0.0/80"}, bad: 0, why: "/96"},
		{in: []string{"1.2.3.4.5"}, bad: 0, why: "not an IP"},
		{in: []string{strings.Repeat("1", 65)}, bad: 0, why: "longer"},
	} {
		l, err := Parse(tc.in)
		if tc.bad < 0 {
			if err != nil || !slices.Equal(l.Strings(), tc.want) {
				t.Errorf("Parse(%q) = %q, %v; want %q", tc.in, l.Strings(), err, tc.want)
			}
			continue
		}
		var ee *EntryError
		if !errors.As(err, &ee) || ee.Index != tc.bad || ee.Entry != tc.in[tc.bad] || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("Parse(%q) error = %v; want entry %d naming %q", tc.in, err, tc.bad, tc.why)
		}
	}
}

func TestParseTooMany(t *testing.T) {
	in := make([]string, MaxEntries+1)
	for i := range in {
		in[i] = "10.0.0.1"
	}
	if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Fatalf("Parse of %d entries: %v", len(in), err)
	}
}

func TestAllows(t *testing.T) {
	list := MustParse("127.0.0.1/32", "127.0.0.3", "10.1.0.0/16", "fd00::/8")
	member := netip.MustParseAddr("192.168.5.5")
	strict := &Policy{List: list}
	members := Policy{List: list, AlwaysAllowMembers: true}.WithMembers([]netip.Addr{member})
	for _, tc := range []struct {
		p          *Policy
		addr       string
		wantAllows bool
	}{
		{nil, "8.8.8.8", true},
		{&Policy{}, "8.8.8.8", true},
		{strict, "127.0.0.1", true},
		{strict, "127.0.0.2", false},
		{strict, "127.0.0.3", true},
		{strict, "::ffff:127.0.0.3", true},
		{strict, "10.1.200.7", true},
		{strict, "10.2.0.1", false},
		{strict, "fd12::1", true},
		{strict, "::1", false},
		{strict, "192.168.5.5", false},
		{members, "::1", true},
		{members, "192.168.5.5", true},
		{members, "::ffff:192.168.5.5", true},
		{members, "127.0.0.2", false},
		{members, "192.168.5.6", false},
	} {
		if got := tc.p.Allows(netip.MustParseAddr(tc.addr)); got != tc.wantAllows {
			t.Errorf("%+v.Allows(%s) = %v, want %v", tc.p, tc.addr, got, tc.wantAllows)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "::ffff:1.2.3.4/120", "", "x", "1.2.3.4/40", "fe80::1%a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse([]string{s})
		if err != nil {
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Entry != s {
				t.Fatalf("Parse(%q): error %v does not name the entry", s, err)
			}
			return
		}
		// Canonical form round-trips and is a fixed point.
		again, err := Parse(l.Strings())
		if err != nil || !again.Equal(l) || l.Len() != 1 {
			t.Fatalf("Parse(%q) = %q; reparse = %q, %v", s, l.Strings(), again.Strings(), err)
		}
		p := l.prefixes[0]
		if !l.Contains(p.Addr()) || p.Masked() != p || p.Addr().Is4In6() {
			t.Fatalf("Parse(%q) = %v: not canonical or does not contain its own address", s, p)
		}
	})
}
