package main

import (
	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/server"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// authMechanisms is the set of mechanisms a data node or router accepts:
// --setParameter authenticationMechanisms when given (an unsupported
// name stops the start), else both SCRAMs plus MONGODB-X509 when TLS is
// on, as MongoDB.
func authMechanisms(params map[string]string, t server.TLS) (auth.Mechanisms, error) {
	if v, ok := params["authenticationMechanisms"]; ok {
		return auth.ParseMechanisms(v)
	}
	return auth.DefaultMechanisms(t.Mode != tlsconf.Disabled), nil
}
