package harness

import (
	"net/url"
	"testing"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// WithURIOptions appends "&"+query to the server's URI (which the harness
// pings and Client connects with), e.g. the TLS options of a server that
// requires TLS.
func WithURIOptions(query string) Option {
	return func(c *config) { c.uriOpts += "&" + query }
}

// TLSFiles generates a CA, a member and a client certificate for a test
// (tlsconf.WriteCluster) in a temporary directory.
func TLSFiles(t testing.TB) tlsconf.Files {
	t.Helper()
	f, err := tlsconf.WriteCluster(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TLSArgs are the serve flags of mode with f's member certificate.
func TLSArgs(f tlsconf.Files, mode string, extra ...string) []string {
	return append([]string{"--tlsMode", mode, "--tlsCertificateKeyFile", f.MemberFile, "--tlsCAFile", f.CAFile}, extra...)
}

// TLSQuery is the driver's URI query for a TLS connection presenting
// certFile ("" presents none).
func TLSQuery(f tlsconf.Files, certFile string) string {
	q := url.Values{"tls": {"true"}, "tlsCAFile": {f.CAFile}}
	if certFile != "" {
		q.Set("tlsCertificateKeyFile", certFile)
	}
	return q.Encode()
}
