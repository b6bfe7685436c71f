package tlsconf

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

const (
	versionTLS12 = tls.VersionTLS12
	versionTLS13 = tls.VersionTLS13
	// sessionCacheSize bounds the outgoing TLS sessions kept for resumption.
	sessionCacheSize = 256
)

// Setup is what a node needs to speak TLS, built by Load.
type Setup struct {
	Mode Mode
	// Server answers incoming handshakes; nil when Mode is Disabled.
	Server *tls.Config
	// Client dials members and shards; nil unless Mode.Outgoing(). Its
	// ServerName is empty: the dialler sets the host it dials (Dial).
	Client *tls.Config
	// Member is the leaf certificate this node presents to other members
	// (ClusterFile, else CertificateKeyFile); nil when Mode is Disabled.
	Member *x509.Certificate
}

// Load validates o and reads its files. A disabled mode returns a Setup
// with nil configs.
func Load(o Options) (*Setup, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	m, _ := ParseMode(o.Mode)
	s := &Setup{Mode: m}
	if m == Disabled {
		return s, nil
	}
	lo, hi, _ := versions(o.DisabledProtocols)
	cert, err := loadKeyPair("net.tls.certificateKeyFile", o.CertificateKeyFile)
	if err != nil {
		return nil, err
	}
	cas, err := loadPool("net.tls.CAFile", o.CAFile)
	if err != nil {
		return nil, err
	}
	s.Server = &tls.Config{MinVersion: lo, MaxVersion: hi, Certificates: []tls.Certificate{cert},
		ClientCAs: cas, ClientAuth: clientAuth(o)}
	member, memberCAs := cert, cas
	if o.ClusterFile != "" {
		if member, err = loadKeyPair("net.tls.clusterFile", o.ClusterFile); err != nil {
			return nil, err
		}
	}
	if o.ClusterCAFile != "" {
		if memberCAs, err = loadPool("net.tls.clusterCAFile", o.ClusterCAFile); err != nil {
			return nil, err
		}
	}
	s.Member = member.Leaf
	if m.Outgoing() {
		s.Client = clientConfig(o, lo, hi, member, memberCAs)
	}
	return s, nil
}

// clientAuth is how the server treats client certificates.
func clientAuth(o Options) tls.ClientAuthType {
	switch {
	case o.AllowInvalidCertificates && o.AllowConnectionsWithoutCertificates:
		return tls.RequestClientCert
	case o.AllowInvalidCertificates:
		return tls.RequireAnyClientCert
	case o.AllowConnectionsWithoutCertificates:
		return tls.VerifyClientCertIfGiven
	}
	return tls.RequireAndVerifyClientCert
}

func clientConfig(o Options, lo, hi uint16, cert tls.Certificate, roots *x509.CertPool) *tls.Config {
	// The session cache is shared by every Dial copy: reconnections to a
	// member resume their TLS session instead of a full handshake.
	c := &tls.Config{MinVersion: lo, MaxVersion: hi, Certificates: []tls.Certificate{cert}, RootCAs: roots,
		ClientSessionCache: tls.NewLRUClientSessionCache(sessionCacheSize)}
	switch {
	case o.AllowInvalidCertificates:
		c.InsecureSkipVerify = true
	case o.AllowInvalidHostnames:
		// The chain is still verified, without the host name.
		c.InsecureSkipVerify = true
		c.VerifyConnection = func(cs tls.ConnectionState) error { return verifyChain(cs, roots) }
	}
	return c
}

// verifyChain checks the peer's chain against roots, ignoring its names.
func verifyChain(cs tls.ConnectionState, roots *x509.CertPool) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: the server presented no certificate")
	}
	inter := x509.NewCertPool()
	for _, c := range cs.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter})
	return err
}

// Dial returns c for a connection to host ("host:port"): a copy with
// ServerName set to the host, so the peer's name is checked (unless the
// config skips it).
func Dial(c *tls.Config, hostPort string) *tls.Config {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		host = hostPort
	}
	out := c.Clone()
	if out.ServerName == "" {
		out.ServerName = host
	}
	return out
}

// loadKeyPair reads a PEM file holding a certificate chain and its key.
func loadKeyPair(opt, path string) (tls.Certificate, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s: %w", opt, err)
	}
	if strings.Contains(string(data), "ENCRYPTED") {
		return tls.Certificate{}, fmt.Errorf("%s %s: the private key is encrypted, which relaydb does not support (net.tls.certificateKeyFilePassword): decrypt it with openssl pkey", opt, path)
	}
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("%s %s: want a PEM certificate and its private key in one file: %w", opt, path, err)
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return tls.Certificate{}, fmt.Errorf("%s %s: %w", opt, path, err)
		}
	}
	if now := time.Now(); now.After(cert.Leaf.NotAfter) || now.Before(cert.Leaf.NotBefore) {
		return tls.Certificate{}, fmt.Errorf("%s %s: the certificate is valid only from %s to %s",
			opt, path, cert.Leaf.NotBefore.UTC().Format(time.RFC3339), cert.Leaf.NotAfter.UTC().Format(time.RFC3339))
	}
	return cert, nil
}

// loadPool reads a PEM bundle of CA certificates.
func loadPool(opt, path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opt, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("%s %s: no PEM certificate in the file", opt, path)
	}
	return pool, nil
}
