package allowlist

import (
	"net"
	"net/netip"
	"slices"
)

// Source says where a policy's list came from.
type Source string

// The sources of a list.
const (
	SourceNone    Source = "none"    // no list configured: everyone allowed
	SourceConfig  Source = "config"  // net.ipAllowlist in the YAML file or --ipAllowlist
	SourceCommand Source = "command" // setIPAllowlist (the stored document)
)

// Policy is one immutable decision table (never modify one after Store).
type Policy struct {
	List               List
	AlwaysAllowMembers bool
	// Members are the addresses of the replica set's members and the
	// cluster's known nodes (sorted, unmapped); used only with
	// AlwaysAllowMembers.
	Members []netip.Addr
	Source  Source
}

var (
	localV4 = netip.MustParseAddr("127.0.0.1")
	localV6 = netip.IPv6Loopback()
)

// Allows reports whether a client at a may connect.
func (p *Policy) Allows(a netip.Addr) bool {
	if p == nil || p.List.Empty() {
		return true
	}
	a = a.Unmap()
	if p.AlwaysAllowMembers && (a == localV4 || a == localV6 || p.isMember(a)) {
		return true
	}
	return p.List.Contains(a)
}

func (p *Policy) isMember(a netip.Addr) bool {
	_, found := slices.BinarySearchFunc(p.Members, a, netip.Addr.Compare)
	return found
}

// AllowsNet is Allows for a connection's remote address; an address that
// is not TCP/UDP (a unix socket, a test pipe) is allowed.
func (p *Policy) AllowsNet(addr net.Addr) bool {
	a, ok := AddrOf(addr)
	return !ok || p.Allows(a)
}

// AddrOf returns the IP of a TCP or UDP address (false for others).
func AddrOf(addr net.Addr) (netip.Addr, bool) {
	switch v := addr.(type) {
	case *net.TCPAddr:
		return v.AddrPort().Addr().Unmap(), true
	case *net.UDPAddr:
		return v.AddrPort().Addr().Unmap(), true
	}
	if addr == nil {
		return netip.Addr{}, false
	}
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// WithMembers returns a copy of p whose Members are ms (sorted, unmapped,
// deduplicated).
func (p Policy) WithMembers(ms []netip.Addr) *Policy {
	out := make([]netip.Addr, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Unmap())
	}
	slices.SortFunc(out, netip.Addr.Compare)
	p.Members = slices.Compact(out)
	return &p
}
