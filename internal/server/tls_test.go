package server

import (
	"crypto/tls"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/tlsconf"
	"github.com/relaydb/relaydb/internal/wire"
)

// tlsServer starts a server in mode with generated certificates and
// returns its address and a client config presenting a client certificate.
func tlsServer(t *testing.T, mode string, timeout time.Duration) (string, *tls.Config) {
	t.Helper()
	f, err := tlsconf.WriteCluster(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := tlsconf.Load(tlsconf.Options{Mode: mode, CertificateKeyFile: f.MemberFile, CAFile: f.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	client, err := tlsconf.Load(tlsconf.Options{Mode: "requireTLS", CertificateKeyFile: f.ClientFile, CAFile: f.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, Config{TLS: TLS{Mode: s.Mode, Config: s.Server, HandshakeTimeout: timeout}})
	return addr, tlsconf.Dial(client.Client, addr)
}

func tlsDial(t *testing.T, addr string, cfg *tls.Config) net.Conn {
	t.Helper()
	c := tls.Client(dial(t, addr), cfg)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := c.Handshake(); err != nil {
		t.Fatalf("handshake: %v", err)
	}
	return c
}

func TestTLSModes(t *testing.T) {
	for _, c := range []struct {
		mode  string
		plain bool
	}{{"allowTLS", true}, {"preferTLS", true}, {"requireTLS", false}} {
		t.Run(c.mode, func(t *testing.T) {
			addr, cfg := tlsServer(t, c.mode, time.Second)
			mustPing(t, tlsDial(t, addr, cfg))
			p := dial(t, addr)
			if c.plain {
				mustPing(t, p)
				return
			}
			p.Write(pingMsg(t))
			closedWithin(t, p, 2*time.Second)
		})
	}
}

// Garbage, partial or silent handshakes on a TLS port are closed within the
// handshake timeout, and the server keeps serving TLS clients.
func TestTLSGarbageHandshakes(t *testing.T) {
	const timeout = 300 * time.Millisecond
	addr, cfg := tlsServer(t, "requireTLS", timeout)
	hello := []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03}
	cases := map[string][]byte{
		"nothing":                nil,
		"one byte":               {0x16},
		"record header only":     hello[:5],
		"partial client hello":   hello,
		"record claiming 16 KiB": {0x16, 0x03, 0x03, 0x40, 0x00, 0x01},
		"not TLS":                []byte("GET / HTTP/1.1\r\n\r\n"),
		"wrong record type":      {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28},
	}
	rng := rand.New(rand.NewPCG(13, 13))
	for i := range 20 {
		b := make([]byte, 1+rng.IntN(300))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		if i%2 == 0 { // half look like a ClientHello at first
			copy(b, hello[:min(len(b), 6)])
		}
		cases["random "+string(rune('a'+i))] = b
	}
	for name, b := range cases {
		c := dial(t, addr)
		if len(b) > 0 {
			c.Write(b)
		}
		if took := closedWithin(t, c, 10*timeout); took > 5*timeout {
			t.Fatalf("%s: closed after %v", name, took)
		}
	}
	mustPing(t, tlsDial(t, addr, cfg))
}

// A client certificate is required unless allowed, and must chain to CAFile.
func TestTLSClientCertificateRequired(t *testing.T) {
	addr, cfg := tlsServer(t, "requireTLS", time.Second)
	bare := cfg.Clone()
	bare.Certificates = nil
	c := tls.Client(dial(t, addr), bare)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	// In TLS 1.3 the client learns of the refusal at its first read.
	err := c.Handshake()
	if err == nil {
		c.Write(pingMsg(t))
		_, _, err = wire.ReadMessage(c, 0)
	}
	if err == nil {
		t.Fatal("a client without a certificate was served")
	}
}

// BenchmarkPing compares ping round trips over plain and TLS connections
// (one connection per parallel worker; TLS 1.3 with P-256 certificates).
func BenchmarkPing(b *testing.B) {
	for _, mode := range []string{"plain", "tls"} {
		b.Run(mode, func(b *testing.B) {
			f, err := tlsconf.WriteCluster(b.TempDir(), nil)
			if err != nil {
				b.Fatal(err)
			}
			s, _ := tlsconf.Load(tlsconf.Options{Mode: "preferTLS", CertificateKeyFile: f.MemberFile, CAFile: f.CAFile})
			client, _ := tlsconf.Load(tlsconf.Options{Mode: "requireTLS", CertificateKeyFile: f.ClientFile, CAFile: f.CAFile})
			addr := startServer(b, Config{TLS: TLS{Mode: s.Mode, Config: s.Server}})
			doc, _ := bson.Marshal(bson.D{{Key: "ping", Value: 1}, {Key: "$db", Value: "admin"}})
			msg := wire.AppendMsg(nil, 1, 0, 0, doc)
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					b.Error(err)
					return
				}
				defer nc.Close()
				c := nc
				if mode == "tls" {
					c = tls.Client(nc, tlsconf.Dial(client.Client, addr))
				}
				for pb.Next() {
					if _, err := c.Write(msg); err != nil {
						b.Error(err)
						return
					}
					if _, _, err := wire.ReadMessage(c, 0); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
