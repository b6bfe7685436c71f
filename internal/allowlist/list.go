package allowlist

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Limits on a list.
const (
	// MaxEntries is the most entries a list may hold.
	MaxEntries  = 1000
	maxEntryLen = 64 // longer than any address or CIDR block
)

// List is a canonical set of address blocks (see the package invariants).
type List struct{ prefixes []netip.Prefix }

// EntryError is a bad list entry: its position, text and why.
type EntryError struct {
	Index  int
	Entry  string
	Reason string
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("IP allowlist entry %d %q is invalid: %s", e.Index, e.Entry, e.Reason)
}

// Parse parses addresses and CIDR blocks ("10.0.0.5", "10.1.0.0/16",
// "::1", "fd00::/8"). It fails on the first bad entry with an *EntryError.
func Parse(entries []string) (List, error) {
	if len(entries) > MaxEntries {
		return List{}, fmt.Errorf("IP allowlist has %d entries; at most %d are allowed", len(entries), MaxEntries)
	}
	ps := make([]netip.Prefix, 0, len(entries))
	for i, e := range entries {
		p, reason := parseEntry(e)
		if reason != "" {
			return List{}, &EntryError{Index: i, Entry: e, Reason: reason}
		}
		ps = append(ps, p)
	}
	return newList(ps), nil
}

// MustParse is Parse for tests and constants; it panics on error.
func MustParse(entries ...string) List {
	l, err := Parse(entries)
	if err != nil {
		panic(err)
	}
	return l
}

// parseEntry returns one entry's prefix, or a reason it is invalid.
func parseEntry(e string) (netip.Prefix, string) {
	switch {
	case e == "":
		return netip.Prefix{}, "empty entry"
	case len(e) > maxEntryLen:
		return netip.Prefix{}, fmt.Sprintf("longer than %d bytes", maxEntryLen)
	case strings.TrimSpace(e) != e:
		return netip.Prefix{}, "leading or trailing space"
	case strings.Contains(e, "%"):
		return netip.Prefix{}, "IPv6 zones are not supported"
	}
	if !strings.Contains(e, "/") {
		a, err := netip.ParseAddr(e)
		if err != nil {
			return netip.Prefix{}, "not an IP address or CIDR block (hostnames are not allowed)"
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), ""
	}
	p, err := netip.ParsePrefix(e)
	if err != nil {
		return netip.Prefix{}, "not a valid CIDR block"
	}
	p, reason := unmapPrefix(p)
	if reason == "" && p.Masked() != p {
		reason = fmt.Sprintf("has bits set beyond the /%d mask (did you mean %s?)", p.Bits(), p.Masked())
	}
	return p, reason
}

// unmapPrefix turns ::ffff:a.b.c.d/n (n >= 96) into a.b.c.d/(n-96).
func unmapPrefix(p netip.Prefix) (netip.Prefix, string) {
	if !p.Addr().Is4In6() {
		return p, ""
	}
	if p.Bits() < 96 {
		return netip.Prefix{}, "an IPv4-mapped block must be /96 or longer"
	}
	return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96), ""
}

func newList(ps []netip.Prefix) List {
	slices.SortFunc(ps, comparePrefix)
	return List{prefixes: slices.Compact(ps)}
}

func comparePrefix(a, b netip.Prefix) int {
	if c := a.Addr().Compare(b.Addr()); c != 0 {
		return c
	}
	return a.Bits() - b.Bits()
}

// Empty reports whether the list has no entries (no restriction).
func (l List) Empty() bool { return len(l.prefixes) == 0 }

// Len is the number of entries.
func (l List) Len() int { return len(l.prefixes) }

// Contains reports whether a (unmapped first) is in one of the blocks.
func (l List) Contains(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range l.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Strings returns the entries in canonical form: a single address without
// its /32 or /128, a block as "addr/bits".
func (l List) Strings() []string {
	out := make([]string, len(l.prefixes))
	for i, p := range l.prefixes {
		if p.IsSingleIP() {
			out[i] = p.Addr().String()
		} else {
			out[i] = p.String()
		}
	}
	return out
}

// Equal reports whether l and o hold the same entries.
func (l List) Equal(o List) bool { return slices.Equal(l.prefixes, o.prefixes) }
