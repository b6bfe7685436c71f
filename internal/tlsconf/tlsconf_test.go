package tlsconf

import (
	"crypto/tls"
	"crypto/x509/pkix"
	"encoding/asn1"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNameString(t *testing.T) {
	oidDC := asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 25}
	cases := []struct {
		name pkix.Name
		want string
	}{
		{ClientSubject, "CN=client,OU=clients,O=relaydb"},
		{pkix.Name{Country: []string{"US"}, Province: []string{"NY"}, Locality: []string{"New York"},
			Organization: []string{"MongoDB"}, OrganizationalUnit: []string{"KernelUser"}, CommonName: "client"},
			"CN=client,OU=KernelUser,O=MongoDB,L=New York,ST=NY,C=US"},
		{pkix.Name{CommonName: `a,b+c"d\e<f>g;h`}, `CN=a\,b\+c\"d\\e\<f\>g\;h`},
		{pkix.Name{CommonName: " #lead trail "}, `CN=\ #lead trail\ `},
		{pkix.Name{CommonName: "#x"}, `CN=\#x`},
	}
	for _, c := range cases {
		if got := NameString(c.name.ToRDNSequence()); got != c.want {
			t.Errorf("NameString(%v) = %q, want %q", c.name, got, c.want)
		}
	}
	dc := pkix.RDNSequence{{{Type: oidDC, Value: "com"}}, {{Type: oidDC, Value: "example"}},
		{{Type: asn1.ObjectIdentifier{2, 5, 4, 3}, Value: "u"}, {Type: asn1.ObjectIdentifier{0, 9, 2342, 19200300, 100, 1, 1}, Value: "x"}}}
	if got, want := NameString(dc), "CN=u+UID=x,DC=example,DC=com"; got != want {
		t.Errorf("NameString(DC) = %q, want %q", got, want)
	}
}

func TestValidate(t *testing.T) {
	ok := Options{Mode: "requireTLS", CertificateKeyFile: "k.pem", CAFile: "ca.pem"}
	cases := []struct {
		o    Options
		want string // "" = valid
	}{
		{Options{}, ""},
		{Options{Mode: "disabled"}, ""},
		{ok, ""},
		{Options{Mode: "sslOnly"}, "invalid"},
		{Options{Mode: "requireTLS", CAFile: "ca.pem"}, "needs net.tls.certificateKeyFile"},
		{Options{Mode: "allowTLS", CertificateKeyFile: "k.pem"}, "needs net.tls.CAFile"},
		{Options{CertificateKeyFile: "k.pem"}, "mode is disabled"},
		{func() Options { o := ok; o.CertificateKeyFilePassword = "x"; return o }(), "certificateKeyFilePassword is not supported"},
		{func() Options { o := ok; o.DisabledProtocols = "TLS1_2,TLS1_3"; return o }(), "disables every protocol"},
		{func() Options { o := ok; o.DisabledProtocols = "SSL3"; return o }(), "unknown protocol"},
		{func() Options { o := ok; o.DisabledProtocols = "TLS1_0,TLS1_1"; return o }(), ""},
	}
	for _, c := range cases {
		err := c.o.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", c.o, err, c.want)
		}
	}
}

// cluster writes a CA, member and client certificates into a temp dir.
func cluster(t *testing.T) Files {
	t.Helper()
	f, err := WriteCluster(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// handshake runs a TLS handshake between a client and a server config
// and returns the client's and the server's errors.
// (Loopback TCP, not net.Pipe: a TLS 1.3 server writes session tickets the
// client may never read.)
func handshake(client, server *tls.Config) (error, error, *tls.ConnectionState) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err, err, nil
	}
	defer l.Close()
	a, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		return err, err, nil
	}
	b, err := l.Accept()
	if err != nil {
		return err, err, nil
	}
	defer a.Close()
	defer b.Close()
	errc := make(chan error, 1)
	srv := tls.Server(b, server)
	go func() { errc <- srv.Handshake(); b.Close() }()
	cerr := tls.Client(a, client).Handshake()
	a.Close()
	serr := <-errc
	st := srv.ConnectionState()
	return cerr, serr, &st
}

func TestLoadAndHandshake(t *testing.T) {
	f := cluster(t)
	o := Options{Mode: "preferTLS", CertificateKeyFile: f.MemberFile, CAFile: f.CAFile}
	s, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != Prefer || s.Server == nil || s.Client == nil || s.Server.MinVersion != tls.VersionTLS12 {
		t.Fatalf("setup: %+v", s)
	}
	// Member to member, by name and by IP: verified both ways.
	for _, host := range []string{"localhost:1", "127.0.0.1:2"} {
		cerr, serr, st := handshake(Dial(s.Client, host), s.Server)
		if cerr != nil || serr != nil || len(st.VerifiedChains) == 0 {
			t.Fatalf("%s: client %v, server %v, chains %d", host, cerr, serr, len(st.VerifiedChains))
		}
		if name, _ := SubjectName(st.PeerCertificates[0]); name != "CN=member,OU=members,O=relaydb" {
			t.Fatalf("peer subject %q", name)
		}
	}
	// A host the certificate does not name fails unless allowInvalidHostnames.
	if cerr, _, _ := handshake(Dial(s.Client, "otherhost:1"), s.Server); cerr == nil {
		t.Fatal("hostname mismatch accepted")
	}
	o.AllowInvalidHostnames = true
	s2, err := Load(o)
	if err != nil {
		t.Fatal(err)
	}
	if cerr, serr, _ := handshake(Dial(s2.Client, "otherhost:1"), s.Server); cerr != nil || serr != nil {
		t.Fatalf("allowInvalidHostnames: %v / %v", cerr, serr)
	}
	// A client without a certificate is refused, unless allowed.
	bare := &tls.Config{RootCAs: s.Client.RootCAs, ServerName: "localhost"}
	if _, serr, _ := handshake(bare, s.Server); serr == nil {
		t.Fatal("client without certificate accepted")
	}
	o.AllowConnectionsWithoutCertificates = true
	s3, _ := Load(o)
	if cerr, serr, _ := handshake(bare, s3.Server); cerr != nil || serr != nil {
		t.Fatalf("allowConnectionsWithoutCertificates: %v / %v", cerr, serr)
	}
}

// A certificate from another CA is refused by the server.
func TestForeignCertificateRefused(t *testing.T) {
	f, other := cluster(t), cluster(t)
	s, err := Load(Options{Mode: "requireTLS", CertificateKeyFile: f.MemberFile, CAFile: f.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	if s.Client != nil && s.Mode != Require {
		t.Fatal("mode")
	}
	foreign, err := Load(Options{Mode: "requireTLS", CertificateKeyFile: other.ClientFile, CAFile: f.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	if _, serr, _ := handshake(Dial(foreign.Client, "localhost:1"), s.Server); serr == nil {
		t.Fatal("certificate of another CA accepted")
	}
}

func TestLoadErrors(t *testing.T) {
	f := cluster(t)
	dir := t.TempDir()
	certOnly := filepath.Join(dir, "cert.pem")
	data, _ := os.ReadFile(f.MemberFile)
	os.WriteFile(certOnly, data[:strings.Index(string(data), "-----BEGIN PRIVATE KEY")], 0o600)
	enc := filepath.Join(dir, "enc.pem")
	os.WriteFile(enc, []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAA==\n-----END ENCRYPTED PRIVATE KEY-----\n"), 0o600)
	ca, err := NewCA("test")
	if err != nil {
		t.Fatal(err)
	}
	old, err := ca.Issue(Request{Subject: MemberSubject, Server: true, NotAfter: time.Now().Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	expired := filepath.Join(dir, "expired.pem")
	os.WriteFile(expired, old, 0o600)
	cases := map[string]struct {
		o    Options
		want string
	}{
		"expired":          {Options{Mode: "requireTLS", CertificateKeyFile: expired, CAFile: f.CAFile}, "the certificate is valid only from"},
		"missing key file": {Options{Mode: "requireTLS", CertificateKeyFile: filepath.Join(dir, "none.pem"), CAFile: f.CAFile}, "no such file"},
		"no key":           {Options{Mode: "requireTLS", CertificateKeyFile: certOnly, CAFile: f.CAFile}, "certificate and its private key"},
		"encrypted":        {Options{Mode: "requireTLS", CertificateKeyFile: enc, CAFile: f.CAFile}, "encrypted"},
		"CA not PEM":       {Options{Mode: "requireTLS", CertificateKeyFile: f.MemberFile, CAFile: enc}, "no PEM certificate"},
	}
	for name, c := range cases {
		if _, err := Load(c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

func TestMemberIdentity(t *testing.T) {
	f := cluster(t)
	s, err := Load(Options{Mode: "requireTLS", CertificateKeyFile: f.MemberFile, CAFile: f.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	if got := MemberIdentity(s.Member); got != "OU=members,O=relaydb" {
		t.Fatalf("MemberIdentity = %q", got)
	}
}
