package config

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/relaydb/relaydb/internal/allowlist"
)

// IPAllowlist is relaydb's IP allowlist (YAML net.ipAllowlist), for data
// nodes and routers alike. On a data node setIPAllowlist's stored list,
// once written, overrides it (docs/security.md).
type IPAllowlist struct {
	// Addresses are IPv4/IPv6 addresses and CIDR blocks allowed to
	// connect. Default empty: every address may connect. YAML
	// net.ipAllowlist.addresses (a list, or one comma-separated string),
	// flag --ipAllowlist a,b,...
	Addresses []string
	// AlwaysAllowMembers, when true (the default, nil), keeps 127.0.0.1,
	// ::1, the replica set's members and the cluster's known nodes allowed
	// whatever Addresses says. YAML net.ipAllowlist.alwaysAllowMembers,
	// flag --ipAllowlistAlwaysAllowMembers[=false].
	AlwaysAllowMembers *bool
}

// MembersAlwaysAllowed is AlwaysAllowMembers with its default.
func (a IPAllowlist) MembersAlwaysAllowed() bool {
	return a.AlwaysAllowMembers == nil || *a.AlwaysAllowMembers
}

// Policy returns the configured policy (Source none when Addresses is empty).
func (a IPAllowlist) Policy() (*allowlist.Policy, error) {
	l, err := allowlist.Parse(a.Addresses)
	if err != nil {
		return nil, fmt.Errorf("net.ipAllowlist.addresses: %w", err)
	}
	src := allowlist.SourceConfig
	if l.Empty() {
		src = allowlist.SourceNone
	}
	return &allowlist.Policy{List: l, AlwaysAllowMembers: a.MembersAlwaysAllowed(), Source: src}, nil
}

func (a IPAllowlist) validate() error {
	_, err := a.Policy()
	return err
}

func init() {
	serveOptions["net.ipAllowlist.addresses"] = func(n *yaml.Node, s *Serve) error { return decodeAddresses(n, &s.IPAllowlist) }
	serveOptions["net.ipAllowlist.alwaysAllowMembers"] = func(n *yaml.Node, s *Serve) error { return decodeAlwaysAllow(n, &s.IPAllowlist) }
	routerOptions["net.ipAllowlist.addresses"] = func(n *yaml.Node, r *Router) error { return decodeAddresses(n, &r.IPAllowlist) }
	routerOptions["net.ipAllowlist.alwaysAllowMembers"] = func(n *yaml.Node, r *Router) error { return decodeAlwaysAllow(n, &r.IPAllowlist) }
}

// decodeAddresses reads a YAML sequence of strings or one comma-separated
// string.
func decodeAddresses(n *yaml.Node, a *IPAllowlist) error {
	switch n.Kind {
	case yaml.ScalarNode:
		a.Addresses = splitList(n.Value)
		return nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, e := range n.Content {
			if e.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: each address must be a string", e.Line)
			}
			out = append(out, e.Value)
		}
		a.Addresses = out
		return nil
	}
	return errors.New("must be a list of addresses and CIDR blocks")
}

func decodeAlwaysAllow(n *yaml.Node, a *IPAllowlist) error {
	var b bool
	if err := decodeScalar(n, "!!bool", &b); err != nil {
		return err
	}
	a.AlwaysAllowMembers = &b
	return nil
}

// splitList splits "a, b,c" into its non-empty trimmed parts.
func splitList(v string) []string {
	var out []string
	for _, e := range strings.Split(v, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// bindAllowlistFlags registers --ipAllowlist and
// --ipAllowlistAlwaysAllowMembers on fs, bound to a.
func bindAllowlistFlags(fs *flag.FlagSet, a *IPAllowlist) {
	fs.Var((*addressesFlag)(a), "ipAllowlist", "comma-separated IP addresses and CIDR blocks allowed to connect (default: any)")
	fs.Var((*alwaysAllowFlag)(a), "ipAllowlistAlwaysAllowMembers",
		"keep 127.0.0.1, ::1 and the cluster's members allowed whatever --ipAllowlist says (default true)")
}

// addressesFlag is --ipAllowlist; String round-trips (Resolve re-applies
// flags after the config file).
type addressesFlag IPAllowlist

func (f *addressesFlag) String() string {
	if f == nil {
		return ""
	}
	return strings.Join(f.Addresses, ",")
}

func (f *addressesFlag) Set(v string) error {
	f.Addresses = splitList(v)
	return nil
}

// alwaysAllowFlag is --ipAllowlistAlwaysAllowMembers, a boolean flag.
type alwaysAllowFlag IPAllowlist

func (f *alwaysAllowFlag) IsBoolFlag() bool { return true }

func (f *alwaysAllowFlag) String() string {
	if f == nil {
		return "true"
	}
	return strconv.FormatBool(IPAllowlist(*f).MembersAlwaysAllowed())
}

func (f *alwaysAllowFlag) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q is not a boolean", v)
	}
	f.AlwaysAllowMembers = &b
	return nil
}
