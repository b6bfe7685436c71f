package router

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// clientCert issues a client certificate for subject and returns it parsed.
func clientCert(t *testing.T, subject pkix.Name) *x509.Certificate {
	t.Helper()
	ca, err := tlsconf.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := ca.Issue(tlsconf.Request{Subject: subject, Client: true})
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemBytes)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func TestRouterX509(t *testing.T) {
	const subject = "CN=app,O=relaydb"
	f := newFakeUsers(t)
	doc, err := bson.Marshal(bson.D{{Key: "_id", Value: "$external." + subject}, {Key: "user", Value: subject}, {Key: "db", Value: "$external"},
		{Key: "credentials", Value: bson.D{{Key: "external", Value: true}}},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	f.docs["$external."+subject] = doc
	r := newAuthRouter(t, f)
	auth := bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}

	plain := command.NewConn(1, "10.0.0.5:1", "s:1")
	if rep := handleOn(t, r, plain, "$external", auth); code(rep) != 18 {
		t.Fatalf("authenticate without a certificate: %v", rep)
	}
	conn := command.NewConn(2, "10.0.0.5:2", "s:1")
	conn.SetTLSPeer(tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{clientCert(t, pkix.Name{CommonName: "app", Organization: []string{"relaydb"}})}}})
	if rep := handleOn(t, r, conn, "admin", auth); code(rep) != 17 {
		t.Fatalf("authenticate on admin: %v", rep)
	}
	if rep := handleOn(t, r, conn, "$external", append(auth, bson.E{Key: "user", Value: "CN=other"})); code(rep) != 18 {
		t.Fatalf("authenticate as another user: %v", rep)
	}
	if rep := handleOn(t, r, conn, "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "PLAIN"}}); code(rep) != 334 {
		t.Fatalf("authenticate PLAIN: %v", rep)
	}
	rep := handleOn(t, r, conn, "$external", auth)
	if code(rep) != 0 || mustGet(rep, "user") != subject {
		t.Fatalf("authenticate: %v", rep)
	}
	st := handleOn(t, r, conn, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
	if s := strings.ReplaceAll(bsonString(st), " ", ""); !strings.Contains(s, subject) {
		t.Fatalf("connectionStatus = %v", st)
	}
	if err := r.authorize(&call{r: r, conn: conn, db: "app", cmd: bson.D{{Key: "find", Value: "c"}}, name: "find", ctx: r.ctx}); err != nil {
		t.Fatalf("find by the x.509 read user: %v", err)
	}
	if err := r.authorize(&call{r: r, conn: conn, db: "app", cmd: bson.D{{Key: "insert", Value: "c"}}, name: "insert", ctx: r.ctx}); err == nil {
		t.Fatal("insert by the x.509 read user allowed")
	}

	// speculativeAuthenticate in hello logs in at once.
	spec := command.NewConn(3, "10.0.0.5:3", "s:1")
	spec.SetTLSPeer(tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{clientCert(t, pkix.Name{CommonName: "app", Organization: []string{"relaydb"}})}}})
	h := handleOn(t, r, spec, "admin", bson.D{{Key: "hello", Value: 1}, {Key: "speculativeAuthenticate", Value: bson.D{{Key: "authenticate", Value: 1},
		{Key: "mechanism", Value: "MONGODB-X509"}, {Key: "db", Value: "$external"}}}})
	if sa, _ := mustGet(h, "speculativeAuthenticate").(bson.D); len(sa) == 0 || len(r.authUsers(spec)) != 1 {
		t.Fatalf("speculative X.509: %v", h)
	}
}

func bsonString(d bson.D) string {
	b, _ := bson.MarshalExtJSON(d, false, false)
	return string(b)
}
