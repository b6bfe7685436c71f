package main

import (
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"time"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/config"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// memberTLS is what this process's node-to-node pools dial with (net.tls
// preferTLS or requireTLS); nil: plain. setupTLS sets it once, before any
// pool is made.
var memberTLS *tls.Config

// memberCert is the certificate this node presents to members (nil
// without TLS), set by setupTLS.
var memberCert *x509.Certificate

// certExpiryWarning: a certificate that expires sooner is warned about at
// start, as mongod does (30 days).
const certExpiryWarning = 30 * 24 * time.Hour

// setupTLS loads net.tls.* (a missing or invalid file stops the start)
// and returns the server's TLS settings.
func setupTLS(o tlsconf.Options, log *slog.Logger) (server.TLS, error) {
	s, err := tlsconf.Load(o)
	if err != nil {
		return server.TLS{}, err
	}
	memberTLS, memberCert = s.Client, s.Member
	if s.Mode != tlsconf.Disabled {
		subject, _ := tlsconf.SubjectName(s.Member)
		log.Info("TLS", "mode", s.Mode.String(), "outgoingTLS", s.Client != nil, "certificate", subject,
			"clientCertificates", !o.AllowConnectionsWithoutCertificates)
		for _, c := range []*x509.Certificate{s.Server.Certificates[0].Leaf, s.Member} {
			if left := time.Until(c.NotAfter); left < certExpiryWarning {
				log.Warn("a TLS certificate expires soon", "subject", c.Subject.String(), "notAfter", c.NotAfter, "daysLeft", int(left.Hours()/24))
			}
		}
	}
	return server.TLS{Mode: s.Mode, Config: s.Server}, nil
}

// setupX509Members applies clusterAuthMode's x.509 half (after setupTLS
// and setupMemberAuth, before any pool is made): sendKeyFile, sendX509 and
// x509 accept members' certificates as __system logins; sendX509 and x509
// make the member pools log in with this node's certificate instead of
// the key file.
func setupX509Members(cfg *config.Serve, disp *command.Dispatcher, log *slog.Logger) {
	if !cfg.AcceptsX509Members() || memberCert == nil {
		return
	}
	disp.AcceptX509Members(memberCert)
	if cfg.X509Members() {
		memberCredential = netclient.X509Credential()
	}
	log.Info("x.509 member authentication", "clusterAuthMode", cfg.EffectiveClusterAuthMode(), "sendsCertificate", cfg.X509Members())
}
