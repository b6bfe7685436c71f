package config

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestTLSYAML(t *testing.T) {
	doc := `net:
  tls:
    mode: requireTLS
    certificateKeyFile: /c/member.pem
    CAFile: /c/ca.pem
    clusterFile: /c/cluster.pem
    allowConnectionsWithoutCertificates: true
    allowInvalidHostnames: true
    disabledProtocols: TLS1_0,TLS1_1
`
	var s Serve
	if err := parseYAML([]byte(doc), &s); err != nil {
		t.Fatal(err)
	}
	o := s.TLS
	if o.Mode != "requireTLS" || o.CertificateKeyFile != "/c/member.pem" || o.CAFile != "/c/ca.pem" || o.ClusterFile != "/c/cluster.pem" ||
		!o.AllowConnectionsWithoutCertificates || !o.AllowInvalidHostnames || o.AllowInvalidCertificates || o.DisabledProtocols != "TLS1_0,TLS1_1" {
		t.Fatalf("parsed %+v", o)
	}
	var r Router
	if err := parseRouterYAML([]byte(doc), &r); err != nil || r.TLS != o {
		t.Fatalf("router: %v %+v", err, r.TLS)
	}
	for bad, want := range map[string]string{
		"net:\n  ssl:\n    mode: requireSSL\n":         "use net.tls",
		"net:\n  tls:\n    FIPSMode: true\n":           "unrecognized option: net.tls.FIPSMode",
		"net:\n  tls:\n    allowInvalidHostnames: 3\n": "not a valid bool",
	} {
		var s Serve
		if err := parseYAML([]byte(bad), &s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", bad, err, want)
		}
	}
}

func TestTLSFlags(t *testing.T) {
	parse := func(args ...string) (*Serve, error) {
		s := &Serve{}
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		BindFlags(fs, s)
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		return s, s.Validate()
	}
	s, err := parse("--tlsMode", "preferTLS", "--tlsCertificateKeyFile", "k.pem", "--tlsCAFile", "ca.pem",
		"--tlsAllowConnectionsWithoutCertificates", "--tlsAllowInvalidHostnames", "--tlsAllowInvalidCertificates")
	if err != nil {
		t.Fatal(err)
	}
	if o := s.TLS; o.Mode != "preferTLS" || o.CertificateKeyFile != "k.pem" || o.CAFile != "ca.pem" ||
		!o.AllowConnectionsWithoutCertificates || !o.AllowInvalidHostnames || !o.AllowInvalidCertificates {
		t.Fatalf("parsed %+v", o)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sslMode", "requireSSL"}, "use --tlsMode"},
		{[]string{"--sslPEMKeyFile", "k.pem"}, "use --tlsCertificateKeyFile"},
		{[]string{"--sslAllowInvalidHostnames"}, "use --tlsAllowInvalidHostnames"},
		{[]string{"--tlsMode", "requireTLS"}, "needs net.tls.certificateKeyFile"},
		{[]string{"--tlsMode", "requireSSL"}, "invalid"},
		{[]string{"--tlsMode", "requireTLS", "--tlsCertificateKeyFile", "k", "--tlsCAFile", "c", "--tlsCertificateKeyFilePassword", "p"}, "not supported"},
	} {
		if _, err := parse(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

func TestRouterTLSFlags(t *testing.T) {
	r := &Router{}
	fs := flag.NewFlagSet("router", flag.ContinueOnError)
	BindRouterFlags(fs, r)
	if err := fs.Parse([]string{"--configdb", "cfg/127.0.0.1:1", "--tlsMode", "requireTLS"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "certificateKeyFile") {
		t.Fatalf("router validate: %v", err)
	}
}
