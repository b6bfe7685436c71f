package router

import (
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// MONGODB-X509 on the router, as a data node's (internal/command/x509.go):
// a client whose TLS certificate the handshake verified logs in on
// $external as the user its subject names, if the config servers hold
// that user (created through the router without a password).

const (
	mechX509   = "MONGODB-X509"
	externalDB = "$external"
)

func init() { localCommands["authenticate"] = handler{fn: authenticate} }

func authenticate(c *call) (bson.D, error) {
	mv, _ := bsonx.Get(c.cmd, "mechanism")
	if mech, _ := mv.(string); mech != mechX509 {
		return nil, mongoerr.New(mongoerr.MechanismUnavailable, "Unsupported mechanism %s for authenticate: use saslStart", mech)
	}
	if err := c.r.opts.AuthMechanisms.Check(mechX509, c.db); err != nil { // authenticationMechanisms
		return nil, c.authErr(err, mechX509)
	}
	if c.db != externalDB {
		return nil, mongoerr.New(mongoerr.ProtocolError, "X.509 authentication must always use the $external database.")
	}
	subject := c.conn.PeerSubject()
	if subject == "" {
		return nil, c.x509Failed("No verified subject name available from client")
	}
	if uv, ok := bsonx.Get(c.cmd, "user"); ok {
		if u, _ := uv.(string); u != "" && u != subject {
			return nil, c.x509Failed("There is no x.509 client certificate matching the user.")
		}
	}
	e, err := c.r.auth.users.get(c.ctx, externalDB, subject, true)
	if err != nil {
		return nil, fmt.Errorf("authenticate: reading user %q: %w", subject, err)
	}
	if e.doc == nil {
		return nil, c.x509Failed(fmt.Sprintf("Could not find user \"%s\" for db \"%s\"", subject, externalDB))
	}
	if err := auth.CheckRestrictions(e.doc.Lookup("authenticationRestrictions"), c.conn.Remote, c.conn.Local); err != nil {
		return nil, c.authErr(err, mechX509)
	}
	ca := c.r.connAuthOf(c.conn)
	ca.mu.Lock()
	ca.addUser(userRef{user: subject, db: externalDB})
	ca.mu.Unlock()
	c.r.loginThrottle.Succeed(auth.RemoteHost(c.conn.Remote))
	c.r.log.Info("authenticated", "user", subject, "db", externalDB, "mechanism", mechX509, "remote", c.conn.Remote)
	return bson.D{{Key: "dbname", Value: externalDB}, {Key: "user", Value: subject}}, nil
}

// x509Failed logs and throttles a failed login (as SCRAM's) and returns
// AuthenticationFailed with its reason.
func (c *call) x509Failed(reason string) error {
	_ = c.authErr(errors.New(reason), mechX509)
	return mongoerr.New(mongoerr.AuthenticationFailed, "%s", reason)
}

// speculativeX509 runs hello's speculativeAuthenticate {authenticate: 1,
// mechanism: "MONGODB-X509", db: "$external"}; nil when it fails (the
// driver then sends authenticate itself and sees the error).
func (c *call) speculativeX509(d bson.D) bson.D {
	dbv, _ := bsonx.Get(d, "db")
	sub := *c
	sub.db, _ = dbv.(string)
	sub.cmd, sub.name = d, "authenticate"
	reply, err := authenticate(&sub)
	if err != nil {
		return nil
	}
	return reply
}
