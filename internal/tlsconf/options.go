package tlsconf

import (
	"errors"
	"fmt"
	"strings"
)

// Options are net.tls.* as mongod spells them (YAML net.tls.<field>, flags
// --tls<Field>). Zero values are mongod's defaults: TLS disabled.
type Options struct {
	// Mode is disabled (default), allowTLS, preferTLS or requireTLS.
	Mode string
	// CertificateKeyFile is a PEM file holding this node's certificate
	// (and chain) and its unencrypted private key. Required unless Mode is
	// disabled.
	CertificateKeyFile string
	// CertificateKeyFilePassword decrypts the key: not supported (refused).
	CertificateKeyFilePassword string
	// CAFile is the PEM bundle of CAs that client and member certificates
	// must chain to. Required unless Mode is disabled.
	CAFile string
	// ClusterFile is the certificate this node presents on its outgoing
	// connections; default CertificateKeyFile.
	ClusterFile string
	// ClusterCAFile verifies the members this node connects to; default
	// CAFile.
	ClusterCAFile string
	// AllowConnectionsWithoutCertificates lets clients connect without a
	// certificate (one they do present is still verified).
	AllowConnectionsWithoutCertificates bool
	// AllowInvalidHostnames skips the host name check of outgoing
	// connections (the chain is still verified).
	AllowInvalidHostnames bool
	// AllowInvalidCertificates skips verifying peers' certificates.
	AllowInvalidCertificates bool
	// DisabledProtocols is a comma-separated list of TLS1_0, TLS1_1,
	// TLS1_2, TLS1_3 or "none". TLS1_0 and TLS1_1 are always disabled.
	DisabledProtocols string
}

// Enabled reports whether Mode is other than disabled.
func (o Options) Enabled() bool { m, err := ParseMode(o.Mode); return err == nil && m != Disabled }

// Validate checks the options without reading files; each problem names
// the option as YAML spells it.
func (o Options) Validate() error {
	m, err := ParseMode(o.Mode)
	if err != nil {
		return err
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if o.CertificateKeyFilePassword != "" {
		bad("net.tls.certificateKeyFilePassword is not supported: decrypt the key (openssl pkey -in key.pem -out plain.pem) and keep the file readable only by relaydb")
	}
	if _, _, err := versions(o.DisabledProtocols); err != nil {
		errs = append(errs, err)
	}
	if m == Disabled {
		if o.CertificateKeyFile != "" || o.CAFile != "" || o.ClusterFile != "" || o.ClusterCAFile != "" {
			bad("net.tls certificate files are set but net.tls.mode is disabled: set --tlsMode allowTLS, preferTLS or requireTLS")
		}
		return errors.Join(errs...)
	}
	if o.CertificateKeyFile == "" {
		bad("net.tls.mode %s needs net.tls.certificateKeyFile (--tlsCertificateKeyFile): a PEM file with this node's certificate and key", m)
	}
	if o.CAFile == "" {
		bad("net.tls.mode %s needs net.tls.CAFile (--tlsCAFile): relaydb does not use the system CA store", m)
	}
	return errors.Join(errs...)
}

// versions returns the TLS versions left by disabledProtocols.
func versions(disabled string) (lo, hi uint16, err error) {
	lo, hi = versionTLS12, versionTLS13
	for _, p := range strings.Split(disabled, ",") {
		switch strings.TrimSpace(p) {
		case "", "none", "TLS1_0", "TLS1_1":
		case "TLS1_2":
			lo = versionTLS13
		case "TLS1_3":
			hi = versionTLS12
		default:
			return 0, 0, fmt.Errorf("net.tls.disabledProtocols: unknown protocol %q (TLS1_0, TLS1_1, TLS1_2, TLS1_3 or none)", p)
		}
	}
	if lo > hi {
		return 0, 0, errors.New("net.tls.disabledProtocols disables every protocol relaydb supports (TLS 1.2 and 1.3)")
	}
	return lo, hi, nil
}
