package config

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// securityUnsupported are the security.* options relaydb refuses (issue
// #13): only security.authorization is honoured so far.
var securityUnsupported = []string{
	"security.keyFile", "security.clusterAuthMode", "security.transitionToAuth",
	"security.javascriptEnabled", "security.redactClientLogData", "security.clusterIpSourceAllowlist",
	"security.clusterIpSourceWhitelist", "security.enableEncryption", "security.sasl", "security.ldap", "security.kmip",
}

func init() {
	serveOptions["security.authorization"] = authorizationOpt
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
