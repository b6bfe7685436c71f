package netclient

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// tlsListener accepts TLS connections (completing each handshake, then
// draining it) until the test ends; it returns its address and the
// client config of a member.
func tlsListener(t testing.TB, o tlsconf.Options) (string, *tls.Config) {
	t.Helper()
	f, err := tlsconf.WriteCluster(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Mode, o.CertificateKeyFile, o.CAFile = "requireTLS", f.MemberFile, f.CAFile
	s, err := tlsconf.Load(o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", s.Server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(io.Discard, c) // the handshake runs on the first read
			}()
		}
	}()
	return ln.Addr().String(), s.Client
}

func TestDialTLS(t *testing.T) {
	addr, cfg := tlsListener(t, tlsconf.Options{})
	_, port, _ := net.SplitHostPort(addr)
	ctx := context.Background()
	for _, host := range []string{addr, "localhost:" + port} {
		c, err := NewPool(Options{TLS: cfg}).Dial(ctx, host)
		if err != nil {
			t.Fatalf("TLS dial %s: %v", host, err)
		}
		if _, ok := c.nc.(*tls.Conn); !ok {
			t.Fatalf("%s: the connection is not TLS", host)
		}
		c.Close()
	}
	// The certificate does not name this host: refused unless allowed.
	other := &tls.Config{}
	*other = *cfg.Clone()
	other.ServerName = "member.example"
	_, err := NewPool(Options{TLS: other}).Dial(ctx, addr)
	if err == nil || !strings.Contains(err.Error(), "TLS handshake") {
		t.Fatalf("dial with a wrong name: %v", err)
	}
	// allowInvalidHostnames: the chain is still checked.
	_, loose := tlsListener(t, tlsconf.Options{AllowInvalidHostnames: true})
	loose = loose.Clone()
	loose.ServerName = "member.example"
	if c, err := NewPool(Options{TLS: loose}).Dial(ctx, addr); err == nil {
		c.Close()
		t.Fatal("allowInvalidHostnames accepted a certificate from another CA")
	}
}

// BenchmarkDialTLS: a new member connection over TLS 1.3 (full handshake,
// P-256 certificates both ways); compare BenchmarkDialLogin/plain.
func BenchmarkDialTLS(b *testing.B) {
	addr, cfg := tlsListener(b, tlsconf.Options{})
	p := NewPool(Options{TLS: cfg})
	defer p.Close()
	for b.Loop() {
		c, err := p.Dial(context.Background(), addr)
		if err != nil {
			b.Fatal(err)
		}
		_ = c.Close()
	}
}
