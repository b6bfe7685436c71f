package main

import (
	"github.com/relaydb/relaydb/internal/allowlist"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/shard/router"
)

// serveAllowlist returns the IP allowlist matcher of a data node: the
// configured list (net.ipAllowlist, --ipAllowlist) until a stored one
// (setIPAllowlist) overrides it, kept current by the dispatcher.
func serveAllowlist(cfg *config.Serve, disp *command.Dispatcher) (*allowlist.Matcher, error) {
	p, err := cfg.IPAllowlist.Policy()
	if err != nil {
		return nil, err
	}
	m := allowlist.NewMatcher(p)
	disp.StartAllowlist(m, p)
	return m, nil
}

// routerAllowlist returns a router's matcher: the list stored on the
// config servers, else the configured one (r follows it).
func routerAllowlist(cfg *config.Router, r *router.Router) (*allowlist.Matcher, error) {
	p, err := cfg.IPAllowlist.Policy()
	if err != nil {
		return nil, err
	}
	m := allowlist.NewMatcher(p)
	r.StartAllowlist(m, p)
	return m, nil
}
