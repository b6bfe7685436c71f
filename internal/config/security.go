package config

import (
	"errors"
	"flag"
	"fmt"

	"gopkg.in/yaml.v3"
)

// securityUnsupported are the security.* options relaydb refuses (issue
// #13): security.authorization, keyFile, clusterAuthMode and
// javascriptEnabled are honoured.
var securityUnsupported = []string{
	"security.transitionToAuth",
	"security.redactClientLogData", "security.clusterIpSourceAllowlist",
	"security.clusterIpSourceWhitelist", "security.enableEncryption", "security.sasl", "security.ldap", "security.kmip",
}

func init() {
	serveOptions["security.authorization"] = authorizationOpt
	serveOptions["security.keyFile"] = stringOpt(func(s *Serve) *string { return &s.KeyFile })
	serveOptions["security.clusterAuthMode"] = stringOpt(func(s *Serve) *string { return &s.ClusterAuthMode })
	serveOptions["security.javascriptEnabled"] = javascriptEnabledOpt
	unsupportedSections = append(unsupportedSections, securityUnsupported...)
}

// authorizationOpt is security.authorization: "enabled" or "disabled", as
// mongod's (the YAML form of --auth).
func authorizationOpt(n *yaml.Node, s *Serve) error {
	var v string
	if err := decodeScalar(n, "!!str", &v); err != nil {
		return err
	}
	switch v {
	case "enabled":
		s.Auth = true
	case "disabled":
		s.Auth = false
	default:
		return fmt.Errorf("%q is invalid: want enabled or disabled", v)
	}
	return nil
}

// javascriptEnabledOpt is security.javascriptEnabled (default true; false
// is --noscripting).
func javascriptEnabledOpt(n *yaml.Node, s *Serve) error {
	var on bool
	if err := decodeScalar(n, "!!bool", &on); err != nil {
		return err
	}
	s.NoScripting = !on
	return nil
}

// Cluster authentication modes (mongod's --clusterAuthMode).
const (
	ClusterAuthKeyFile     = "keyFile"
	ClusterAuthSendKeyFile = "sendKeyFile"
	ClusterAuthSendX509    = "sendX509"
	ClusterAuthX509        = "x509"
)

// bindSecurityFlags registers --keyFile, --clusterAuthMode and
// --noscripting on fs.
func bindSecurityFlags(fs *flag.FlagSet, s *Serve) {
	fs.BoolVar(&s.NoScripting, "noscripting", s.NoScripting, "disable server-side JavaScript ($where, $function, $accumulator)")
	fs.StringVar(&s.KeyFile, "keyFile", s.KeyFile, "member key file (members authenticate to each other as __system; implies --auth)")
	fs.StringVar(&s.ClusterAuthMode, "clusterAuthMode", s.ClusterAuthMode, "member authentication: keyFile (default with --keyFile), sendKeyFile, sendX509 or x509")
}

// AuthRequired reports whether clients must authenticate: --auth, or a
// key file (which implies it, as in mongod).
func (s *Serve) AuthRequired() bool { return s.Auth || s.KeyFile != "" || s.X509Members() }

// EffectiveClusterAuthMode is ClusterAuthMode, or keyFile when a key file
// is set and no mode is ("" without either: members do not authenticate).
func (s *Serve) EffectiveClusterAuthMode() string {
	if s.ClusterAuthMode == "" && s.KeyFile != "" {
		return ClusterAuthKeyFile
	}
	return s.ClusterAuthMode
}

// validateSecurity checks the member authentication options: a known
// clusterAuthMode that relaydb implements, a key file for the key file
// modes, and member authentication whenever --auth runs on a replica set
// or in a sharded cluster.
func (s *Serve) validateSecurity() error {
	mode := s.EffectiveClusterAuthMode()
	switch mode {
	case "", ClusterAuthKeyFile, ClusterAuthSendKeyFile, ClusterAuthSendX509, ClusterAuthX509:
	default:
		return fmt.Errorf("clusterAuthMode %q is invalid (keyFile, sendKeyFile, sendX509 or x509)", mode)
	}
	if err := s.validateX509Members(mode); err != nil {
		return err
	}
	if (mode == ClusterAuthKeyFile || mode == ClusterAuthSendKeyFile) && s.KeyFile == "" {
		return fmt.Errorf("clusterAuthMode %s needs a key file (--keyFile)", mode)
	}
	if s.AuthRequired() && mode == "" && (s.ReplSet != "" || s.ClusterRole != "") {
		return errors.New("--auth on a replica set or sharded cluster needs member authentication: give every member the same --keyFile (security.keyFile)")
	}
	return nil
}
