package secexp

import (
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// certSet is the CA and certificates of the TLS variants.
type certSet struct{ f tlsconf.Files }

func newCertSet(dir string) (*certSet, error) {
	f, err := tlsconf.WriteCluster(filepath.Join(dir, "tls"), nil)
	if err != nil {
		return nil, fmt.Errorf("certificates: %w", err)
	}
	return &certSet{f: f}, nil
}

// serverArgs require TLS; clients need not present a certificate.
func (c *certSet) serverArgs() []string {
	return []string{"--tlsMode", "requireTLS", "--tlsCertificateKeyFile", c.f.MemberFile, "--tlsCAFile", c.f.CAFile,
		"--tlsAllowConnectionsWithoutCertificates"}
}

func (c *certSet) uriQuery() string {
	return url.Values{"tls": {"true"}, "tlsCAFile": {c.f.CAFile}}.Encode()
}
