package command

import (
	"crypto/x509"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/auth/privilege"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// x.509 member authentication (clusterAuthMode sendKeyFile, sendX509 or
// x509; issue #13), MongoDB's rule: a peer whose verified certificate has
// the same O, OU and DC attributes as this member's own certificate (at
// least one of them) is a member of the cluster. Its MONGODB-X509 login
// makes the connection __system@local, as a key-file login does. So a
// client certificate must differ from the members' in O, OU or DC, or
// its holder is a member (tlsconf.WriteCluster's differ in OU).

// AcceptX509Members lets members log in with their certificates: member
// is this node's own (tlsconf.Setup.Member). Call before serving.
func (d *Dispatcher) AcceptX509Members(member *x509.Certificate) {
	d.x509Member = tlsconf.MemberIdentity(member)
}

// isX509Member reports whether cert names a member of this cluster.
func (d *Dispatcher) isX509Member(cert *x509.Certificate) bool {
	return d.x509Member != "" && cert != nil && tlsconf.MemberIdentity(cert) == d.x509Member
}

// x509MemberLogin records __system@local on the connection.
func (c *Ctx) x509MemberLogin(subject string) bson.D {
	c.Conn.addUser(authUser{user: auth.SystemUser, db: auth.SystemDB, privs: privilege.SystemPrivileges(), gen: c.D.authGen()})
	c.D.log.Info("authenticated", "user", auth.SystemUser, "db", auth.SystemDB, "mechanism", mechX509, "member", subject, "remote", c.Conn.Remote)
	return bson.D{{Key: "dbname", Value: externalDB}, {Key: "user", Value: subject}}
}
