package command

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// MONGODB-X509 (issue #13): a client that presented a certificate its TLS
// handshake verified against CAFile logs in, on $external, as the user
// named by the certificate's subject (RFC 2253, tlsconf.SubjectName).
// Such users are created with createUser on $external without a password
// (credentials {external: true}, as MongoDB stores them).
// A member's certificate logs in as __system instead (x509_member.go).
// The router's login (shard/router/auth_x509.go) reads PeerSubject.
// TODO(#14): CRLs and OCSP (revoked client certificates still log in).

const (
	mechX509   = "MONGODB-X509"
	externalDB = "$external"
)

// SetTLSPeer records the certificate of a completed TLS handshake: the
// leaf of its first verified chain. An unverified certificate (none, or
// allowInvalidCertificates) is not recorded and cannot log in.
func (c *Conn) SetTLSPeer(cs tls.ConnectionState) {
	if len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return
	}
	c.mu.Lock()
	c.peerCert = cs.VerifiedChains[0][0]
	c.mu.Unlock()
}

// peerSubject is the verified client certificate's subject, or "".
func (c *Conn) peerSubject() string {
	_, name := c.peerIdentity()
	return name
}

// peerIdentity is the verified client certificate and its subject (nil
// and "" without one).
func (c *Conn) peerIdentity() (*x509.Certificate, string) {
	c.mu.Lock()
	cert := c.peerCert
	c.mu.Unlock()
	if cert == nil {
		return nil, ""
	}
	name, err := tlsconf.SubjectName(cert)
	if err != nil {
		return nil, ""
	}
	return cert, name
}

func authenticate(c *Ctx, p *request.Authenticate) (bson.D, error) {
	if p.Mechanism != mechX509 {
		return nil, mongoerr.New(mongoerr.MechanismUnavailable, "Unsupported mechanism %s for authenticate: use saslStart", p.Mechanism)
	}
	if c.DB != externalDB {
		return nil, mongoerr.New(mongoerr.ProtocolError, "X.509 authentication must always use the $external database.")
	}
	cert, subject := c.Conn.peerIdentity()
	if err := c.D.mechs.Check(mechX509, c.DB); err != nil && !c.D.isX509Member(cert) { // mechanisms.go
		return nil, c.authErr(err, mechX509)
	}
	if subject == "" {
		return nil, c.x509Failed("No verified subject name available from client")
	}
	if p.User != nil && *p.User != "" && *p.User != subject {
		return nil, c.x509Failed("There is no x.509 client certificate matching the user.")
	}
	if c.D.isX509Member(cert) {
		return c.x509MemberLogin(subject), nil
	}
	gen := c.D.authGen() // before the reads, as saslStep
	doc, err := c.D.userDoc(externalDB, subject)
	if err != nil {
		return nil, fmt.Errorf("authenticate: reading user %q: %w", subject, err)
	}
	if doc == nil {
		return nil, c.x509Failed(fmt.Sprintf("Could not find user \"%s\" for db \"%s\"", subject, externalDB))
	}
	if err := auth.CheckRestrictions(doc.Lookup("authenticationRestrictions"), c.Conn.Remote, c.Conn.Local); err != nil {
		return nil, c.authErr(err, mechX509)
	}
	c.Conn.addUser(authUser{user: subject, db: externalDB, privs: c.D.userPrivileges(externalDB, subject), gen: gen})
	loginThrottle.Succeed(auth.RemoteHost(c.Conn.Remote))
	c.D.log.Info("authenticated", "user", subject, "db", externalDB, "mechanism", mechX509, "remote", c.Conn.Remote)
	return bson.D{{Key: "dbname", Value: externalDB}, {Key: "user", Value: subject}}, nil
}

// x509Failed logs and throttles a failed login (as SCRAM's) and returns
// MongoDB's AuthenticationFailed with its reason.
func (c *Ctx) x509Failed(reason string) error {
	_ = c.authErr(errors.New(reason), mechX509)
	return mongoerr.New(mongoerr.AuthenticationFailed, "%s", reason)
}

// addUser records an authenticated user (once).
func (c *Conn) addUser(u authUser) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, have := range c.auth.users {
		if have.user == u.user && have.db == u.db {
			return
		}
	}
	c.auth.users = append(c.auth.users, u)
}

// speculativeX509 runs hello's speculativeAuthenticate {authenticate: 1,
// mechanism: "MONGODB-X509", user?, db: "$external"}; nil when it fails
// (the driver then sends authenticate itself and sees the error).
func (c *Ctx) speculativeX509(d bson.D) bson.D {
	dbv, _ := bsonx.Get(d, "db")
	mech, _ := bsonx.Get(d, "mechanism")
	p := &request.Authenticate{}
	p.Mechanism, _ = mech.(string)
	if u, ok := bsonx.Get(d, "user"); ok {
		s, _ := u.(string)
		p.User = &s
	}
	sub := *c
	sub.DB, _ = dbv.(string)
	reply, err := authenticate(&sub, p)
	if err != nil {
		return nil
	}
	return reply
}

// externalCredentials are the credentials of a $external user.
func externalCredentials(pwd *string) (bson.D, error) {
	if pwd != nil {
		return nil, mongoerr.New(mongoerr.BadValue, "Cannot set the password for users defined on the '$external' database")
	}
	return bson.D{{Key: "external", Value: true}}, nil
}

// userCredentials are createUser's credentials: {external: true} on
// $external, SCRAM keys elsewhere.
func userCredentials(db, user string, pwd *string, mechs any) (bson.D, error) {
	if db == externalDB {
		return externalCredentials(pwd)
	}
	creds, err := newCredentials(user, pwd, mechs)
	if err != nil {
		return nil, err
	}
	return creds.BSON(), nil
}
