package config

import (
	"strings"
	"testing"
)

// TestSecurityFlags: --keyFile implies authentication and is what lets
// --auth run on a replica set or in a cluster; clusterAuthMode values
// x509, sendX509 and sendKeyFile need TLS (tls.go).
func TestSecurityFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		err  string
		mode string
	}{
		{"auth standalone", []string{"--auth"}, "", ""},
		{"auth replSet without key", []string{"--auth", "--replSet=rs"}, "needs member authentication: give every member the same --keyFile", ""},
		{"auth shardsvr without key", []string{"--auth", "--replSet=rs", "--shardsvr"}, "needs member authentication", ""},
		{"keyFile replSet", []string{"--keyFile=/k", "--replSet=rs"}, "", "keyFile"},
		{"keyFile auth configsvr", []string{"--auth", "--keyFile=/k", "--replSet=rs", "--configsvr"}, "", "keyFile"},
		{"keyFile standalone", []string{"--keyFile=/k"}, "", "keyFile"},
		{"explicit keyFile mode", []string{"--keyFile=/k", "--clusterAuthMode=keyFile", "--replSet=rs"}, "", "keyFile"},
		{"keyFile mode without key", []string{"--clusterAuthMode=keyFile"}, "clusterAuthMode keyFile needs a key file", ""},
		{"x509 without TLS", []string{"--clusterAuthMode=x509", "--replSet=rs"}, "clusterAuthMode x509 needs TLS between members", ""},
		{"x509 with allowTLS", []string{"--clusterAuthMode=x509", "--replSet=rs", "--tlsMode=allowTLS", "--tlsCertificateKeyFile=k", "--tlsCAFile=c"}, "needs TLS between members", ""},
		{"x509 with requireTLS", []string{"--clusterAuthMode=x509", "--replSet=rs", "--tlsMode=requireTLS", "--tlsCertificateKeyFile=k", "--tlsCAFile=c"}, "", "x509"},
		{"sendKeyFile without TLS", []string{"--keyFile=/k", "--clusterAuthMode=sendKeyFile"}, "clusterAuthMode sendKeyFile accepts members' certificates and needs --tlsMode", ""},
		{"sendKeyFile with allowTLS", []string{"--keyFile=/k", "--clusterAuthMode=sendKeyFile", "--tlsMode=allowTLS", "--tlsCertificateKeyFile=k", "--tlsCAFile=c"}, "", "sendKeyFile"},
		{"sendX509 without TLS", []string{"--keyFile=/k", "--clusterAuthMode=sendX509"}, "needs TLS between members", ""},
		{"sendX509 with preferTLS", []string{"--keyFile=/k", "--clusterAuthMode=sendX509", "--tlsMode=preferTLS", "--tlsCertificateKeyFile=k", "--tlsCAFile=c"}, "", "sendX509"},
		{"unknown mode", []string{"--keyFile=/k", "--clusterAuthMode=kerberos"}, `clusterAuthMode "kerberos" is invalid`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parse(t, tc.args...)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !s.AuthRequired() {
				t.Error("AuthRequired false")
			}
			if got := s.EffectiveClusterAuthMode(); got != tc.mode {
				t.Errorf("mode = %q, want %q", got, tc.mode)
			}
		})
	}
	if s, err := parse(t); err != nil || s.AuthRequired() || s.EffectiveClusterAuthMode() != "" {
		t.Fatalf("defaults: auth %v mode %q err %v", s.AuthRequired(), s.EffectiveClusterAuthMode(), err)
	}
}
