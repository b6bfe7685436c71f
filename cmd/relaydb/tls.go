package main

import (
	"crypto/tls"
	"log/slog"

	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// memberTLS is what this process's node-to-node pools dial with (net.tls
// preferTLS or requireTLS); nil: plain. setupTLS sets it once, before any
// pool is made.
var memberTLS *tls.Config

// setupTLS loads net.tls.* (a missing or invalid file stops the start)
// and returns the server's TLS settings.
func setupTLS(o tlsconf.Options, log *slog.Logger) (server.TLS, error) {
	s, err := tlsconf.Load(o)
	if err != nil {
		return server.TLS{}, err
	}
	memberTLS = s.Client
	if s.Mode != tlsconf.Disabled {
		subject, _ := tlsconf.SubjectName(s.Member)
		log.Info("TLS", "mode", s.Mode.String(), "outgoingTLS", s.Client != nil, "certificate", subject,
			"clientCertificates", !o.AllowConnectionsWithoutCertificates)
	}
	return server.TLS{Mode: s.Mode, Config: s.Server}, nil
}
