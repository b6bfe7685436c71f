package config

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// TLS options (net.tls.*, issue #13) are shared by `relaydb serve` and
// `relaydb router`: the same YAML leaves and mongod's flag names. The
// legacy net.ssl.* / --ssl* spellings are refused with the tls name to
// use instead.

// tlsOptions are the net.tls.* leaves relaydb honours (others under
// net.tls, e.g. FIPSMode or CRLFile, are unrecognized and refused).
var tlsOptions = map[string]func(n *yaml.Node, o *tlsconf.Options) error{
	"mode":                                tlsString(func(o *tlsconf.Options) *string { return &o.Mode }),
	"certificateKeyFile":                  tlsString(func(o *tlsconf.Options) *string { return &o.CertificateKeyFile }),
	"certificateKeyFilePassword":          tlsString(func(o *tlsconf.Options) *string { return &o.CertificateKeyFilePassword }),
	"CAFile":                              tlsString(func(o *tlsconf.Options) *string { return &o.CAFile }),
	"clusterFile":                         tlsString(func(o *tlsconf.Options) *string { return &o.ClusterFile }),
	"clusterCAFile":                       tlsString(func(o *tlsconf.Options) *string { return &o.ClusterCAFile }),
	"disabledProtocols":                   tlsString(func(o *tlsconf.Options) *string { return &o.DisabledProtocols }),
	"allowConnectionsWithoutCertificates": tlsBool(func(o *tlsconf.Options) *bool { return &o.AllowConnectionsWithoutCertificates }),
	"allowInvalidHostnames":               tlsBool(func(o *tlsconf.Options) *bool { return &o.AllowInvalidHostnames }),
	"allowInvalidCertificates":            tlsBool(func(o *tlsconf.Options) *bool { return &o.AllowInvalidCertificates }),
}

func tlsString(f func(*tlsconf.Options) *string) func(*yaml.Node, *tlsconf.Options) error {
	return func(n *yaml.Node, o *tlsconf.Options) error { return decodeScalar(n, "!!str", f(o)) }
}

func tlsBool(f func(*tlsconf.Options) *bool) func(*yaml.Node, *tlsconf.Options) error {
	return func(n *yaml.Node, o *tlsconf.Options) error { return decodeScalar(n, "!!bool", f(o)) }
}

// errSSL refuses the legacy net.ssl section.
func errSSL(*yaml.Node) error {
	return fmt.Errorf("net.ssl is not supported: use net.tls (net.ssl.mode requireSSL -> net.tls.mode requireTLS, PEMKeyFile -> certificateKeyFile, CAFile -> CAFile, ...)")
}

func init() {
	unsupportedSections = slices.DeleteFunc(unsupportedSections, func(s string) bool { return s == "net.tls" || s == "net.ssl" })
	for name, opt := range tlsOptions {
		serveOptions["net.tls."+name] = func(n *yaml.Node, s *Serve) error { return opt(n, &s.TLS) }
		routerOptions["net.tls."+name] = func(n *yaml.Node, r *Router) error { return opt(n, &r.TLS) }
	}
	serveOptions["net.ssl"] = func(n *yaml.Node, _ *Serve) error { return errSSL(n) }
	routerOptions["net.ssl"] = func(n *yaml.Node, _ *Router) error { return errSSL(n) }
}

// sslFlags are mongod's legacy --ssl* flags and their --tls* names.
var sslFlags = map[string]string{
	"ssl": "tlsMode requireTLS", "sslMode": "tlsMode", "sslPEMKeyFile": "tlsCertificateKeyFile",
	"sslPEMKeyPassword": "tlsCertificateKeyFilePassword", "sslCAFile": "tlsCAFile",
	"sslClusterFile": "tlsClusterFile", "sslClusterCAFile": "tlsClusterCAFile",
	"sslAllowConnectionsWithoutCertificates": "tlsAllowConnectionsWithoutCertificates",
	"sslAllowInvalidHostnames":               "tlsAllowInvalidHostnames",
	"sslAllowInvalidCertificates":            "tlsAllowInvalidCertificates", "sslDisabledProtocols": "tlsDisabledProtocols",
}

// bindTLSFlags registers mongod's --tls* flags on fs, bound to o, and
// refuses the --ssl* ones with the name to use.
func bindTLSFlags(fs *flag.FlagSet, o *tlsconf.Options) {
	fs.StringVar(&o.Mode, "tlsMode", o.Mode, "disabled, allowTLS, preferTLS or requireTLS")
	fs.StringVar(&o.CertificateKeyFile, "tlsCertificateKeyFile", o.CertificateKeyFile, "PEM file with this node's certificate and private key")
	fs.StringVar(&o.CertificateKeyFilePassword, "tlsCertificateKeyFilePassword", o.CertificateKeyFilePassword, "not supported (use an unencrypted key)")
	fs.StringVar(&o.CAFile, "tlsCAFile", o.CAFile, "PEM file of the CAs client and member certificates must chain to")
	fs.StringVar(&o.ClusterFile, "tlsClusterFile", o.ClusterFile, "certificate and key presented to other members (default --tlsCertificateKeyFile)")
	fs.StringVar(&o.ClusterCAFile, "tlsClusterCAFile", o.ClusterCAFile, "CAs that verify other members (default --tlsCAFile)")
	fs.StringVar(&o.DisabledProtocols, "tlsDisabledProtocols", o.DisabledProtocols, "TLS1_2 or TLS1_3 to disable one (TLS 1.0 and 1.1 are always off)")
	fs.BoolVar(&o.AllowConnectionsWithoutCertificates, "tlsAllowConnectionsWithoutCertificates", o.AllowConnectionsWithoutCertificates, "let clients connect without a certificate")
	fs.BoolVar(&o.AllowInvalidHostnames, "tlsAllowInvalidHostnames", o.AllowInvalidHostnames, "do not check members' host names")
	fs.BoolVar(&o.AllowInvalidCertificates, "tlsAllowInvalidCertificates", o.AllowInvalidCertificates, "do not verify peers' certificates")
	for old, repl := range sslFlags {
		refuse := func(string) error { return fmt.Errorf("--%s is not supported: use --%s", old, repl) }
		if old == "ssl" || strings.HasPrefix(old, "sslAllow") {
			fs.BoolFunc(old, "legacy: use --"+repl, refuse)
		} else {
			fs.Func(old, "legacy: use --"+repl, refuse)
		}
	}
}

// X509Members reports whether members log in to each other with their
// certificates (clusterAuthMode sendX509 or x509); like a key file, it
// implies --auth, as in mongod.
func (s *Serve) X509Members() bool {
	m := s.EffectiveClusterAuthMode()
	return m == ClusterAuthSendX509 || m == ClusterAuthX509
}

// AcceptsX509Members reports whether members' certificates are accepted
// as member logins (sendKeyFile, sendX509, x509).
func (s *Serve) AcceptsX509Members() bool {
	return s.X509Members() || s.EffectiveClusterAuthMode() == ClusterAuthSendKeyFile
}

// validateX509Members checks that the x.509 cluster auth modes have the
// TLS they need: members present their certificates on connections they
// open, which use TLS only in preferTLS and requireTLS.
func (s *Serve) validateX509Members(mode string) error {
	tlsMode, _ := tlsconf.ParseMode(s.TLS.Mode)
	switch {
	case s.X509Members() && !tlsMode.Outgoing():
		return fmt.Errorf("clusterAuthMode %s needs TLS between members: --tlsMode preferTLS or requireTLS with --tlsCertificateKeyFile and --tlsCAFile", mode)
	case s.AcceptsX509Members() && !tlsMode.Accepts():
		return fmt.Errorf("clusterAuthMode %s accepts members' certificates and needs --tlsMode (allowTLS, preferTLS or requireTLS)", mode)
	}
	return nil
}

// X509Members reports whether the router logs in to members with its
// certificate (clusterAuthMode sendX509 or x509); it implies client
// authentication, as a key file does.
func (r *Router) X509Members() bool {
	m := r.EffectiveClusterAuthMode()
	return m == ClusterAuthSendX509 || m == ClusterAuthX509
}

// validateX509Members: the router presents its certificate only on TLS
// connections, which it opens in preferTLS and requireTLS.
func (r *Router) validateX509Members(mode string) error {
	tlsMode, _ := tlsconf.ParseMode(r.TLS.Mode)
	if r.X509Members() && !tlsMode.Outgoing() {
		return fmt.Errorf("clusterAuthMode %s needs TLS to the cluster: --tlsMode preferTLS or requireTLS with --tlsCertificateKeyFile and --tlsCAFile", mode)
	}
	return nil
}
