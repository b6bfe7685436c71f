package config

import (
	"flag"
	"fmt"

	"gopkg.in/yaml.v3"
)

// The router's member authentication, as mongos: a key file makes it log
// in to the config servers and shards as __system and implies client
// authentication (mongos has no --auth of its own).

func init() {
	routerOptions["security.keyFile"] = func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!str", &r.KeyFile) }
	routerOptions["security.clusterAuthMode"] = func(n *yaml.Node, r *Router) error {
		return decodeScalar(n, "!!str", &r.ClusterAuthMode)
	}
	routerOptions["security.javascriptEnabled"] = func(n *yaml.Node, r *Router) error {
		var on bool
		err := decodeScalar(n, "!!bool", &on)
		r.NoScripting = !on
		return err
	}
}

// bindRouterSecurityFlags registers --keyFile, --clusterAuthMode and
// --noscripting.
func bindRouterSecurityFlags(fs *flag.FlagSet, r *Router) {
	fs.BoolVar(&r.NoScripting, "noscripting", r.NoScripting, "disable server-side JavaScript in the router")
	fs.StringVar(&r.KeyFile, "keyFile", r.KeyFile, "cluster key file (the router authenticates to members as __system; implies client authentication)")
	fs.StringVar(&r.ClusterAuthMode, "clusterAuthMode", r.ClusterAuthMode, "member authentication: keyFile (default with --keyFile), sendKeyFile, sendX509 or x509")
}

// AuthRequired reports whether clients must authenticate (a key file).
func (r *Router) AuthRequired() bool { return r.KeyFile != "" || r.X509Members() }

// EffectiveClusterAuthMode is ClusterAuthMode, or keyFile with a key file.
func (r *Router) EffectiveClusterAuthMode() string {
	if r.ClusterAuthMode == "" && r.KeyFile != "" {
		return ClusterAuthKeyFile
	}
	return r.ClusterAuthMode
}

// validateSecurity checks clusterAuthMode as for serve.
func (r *Router) validateSecurity() error {
	mode := r.EffectiveClusterAuthMode()
	switch mode {
	case "", ClusterAuthKeyFile, ClusterAuthSendKeyFile, ClusterAuthSendX509, ClusterAuthX509:
	default:
		return fmt.Errorf("clusterAuthMode %q is invalid (keyFile, sendKeyFile, sendX509 or x509)", mode)
	}
	if err := r.validateX509Members(mode); err != nil {
		return err
	}
	if (mode == ClusterAuthKeyFile || mode == ClusterAuthSendKeyFile) && r.KeyFile == "" {
		return fmt.Errorf("clusterAuthMode %s needs a key file (--keyFile)", mode)
	}
	return nil
}
