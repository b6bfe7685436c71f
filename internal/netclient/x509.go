package netclient

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// X509Credential logs a pool's connections in with MONGODB-X509 on
// $external (clusterAuthMode sendX509 or x509): the certificate the
// pool's TLS config presents names the member. The pool needs Options.TLS.
func X509Credential() *Credential {
	return &Credential{User: "(x.509 member certificate)", DB: "$external", x509: true}
}

// authenticateX509 runs authenticate {mechanism: "MONGODB-X509"}.
func authenticateX509(ctx context.Context, c *Conn) error {
	_, err := c.Run(ctx, "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}})
	return err
}
