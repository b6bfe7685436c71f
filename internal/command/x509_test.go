package command

import (
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command/request"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
	"github.com/relaydb/relaydb/internal/tlsconf"
)

// issue returns a certificate with subject signed by ca.
func issue(t *testing.T, ca *tlsconf.CA, req tlsconf.Request) *x509.Certificate {
	t.Helper()
	pemData, err := ca.Issue(req)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(pemData)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

func TestAuthenticateX509(t *testing.T) {
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	d := NewDispatcher(exec.New(cat, slog.Default()), Info{}, slog.Default())
	ca, err := tlsconf.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	client := issue(t, ca, tlsconf.Request{Subject: tlsconf.ClientSubject, Client: true})
	member := issue(t, ca, tlsconf.Request{Subject: tlsconf.MemberSubject, Client: true, Server: true})
	clientUser := "CN=client,OU=clients,O=relaydb"
	admin := &Ctx{D: d, DB: externalDB, Conn: NewConn(1, "127.0.0.1:1", "")}
	if _, err := createUser(admin, &request.CreateUser{User: clientUser, Roles: bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}}); err != nil {
		t.Fatalf("createUser on $external: %v", err)
	}
	pwd := "x"
	if _, err := createUser(admin, &request.CreateUser{User: "other", Pwd: &pwd, Roles: bson.A{}}); mongoerr.From(err).Code != mongoerr.BadValue {
		t.Fatalf("createUser on $external with a password: %v", err)
	}
	if _, err := updateUser(admin, &request.UpdateUser{User: clientUser, Pwd: &pwd}); mongoerr.From(err).Code != mongoerr.BadValue {
		t.Fatalf("updateUser of a $external user with a password: %v", err)
	}
	str := func(s string) *string { return &s }
	cases := []struct {
		name    string
		cert    *x509.Certificate
		members bool // AcceptX509Members
		db      string
		mech    string
		user    *string
		code    mongoerr.Code // 0: success
		asUser  string        // the connection's user after success
	}{
		{"client", client, false, externalDB, mechX509, nil, 0, clientUser},
		{"client naming itself", client, false, externalDB, mechX509, str(clientUser), 0, clientUser},
		{"client naming another", client, false, externalDB, mechX509, str("CN=x"), mongoerr.AuthenticationFailed, ""},
		{"no certificate", nil, false, externalDB, mechX509, nil, mongoerr.AuthenticationFailed, ""},
		{"not $external", client, false, "admin", mechX509, nil, mongoerr.ProtocolError, ""},
		{"SCRAM through authenticate", client, false, externalDB, auth.MechSHA256, nil, mongoerr.MechanismUnavailable, ""},
		{"member certificate, no user", member, false, externalDB, mechX509, nil, mongoerr.AuthenticationFailed, ""},
		{"member certificate as member", member, true, externalDB, mechX509, nil, 0, auth.SystemUser},
		{"client certificate is no member", client, true, externalDB, mechX509, nil, 0, clientUser},
	}
	for i, tc := range cases {
		d.x509Member = ""
		if tc.members {
			d.AcceptX509Members(member)
		}
		conn := NewConn(int64(10+i), "127.0.0.1:2", "")
		conn.peerCert = tc.cert
		reply, err := authenticate(&Ctx{D: d, DB: tc.db, Conn: conn}, &request.Authenticate{Mechanism: tc.mech, User: tc.user})
		if tc.code != 0 {
			if mongoerr.From(err).Code != tc.code {
				t.Errorf("%s: %v, want code %d", tc.name, err, tc.code)
			}
			continue
		}
		users := conn.authUsers()
		if err != nil || len(users) != 1 || users[0].user != tc.asUser {
			t.Errorf("%s: %v %v, users %+v", tc.name, reply, err, users)
			continue
		}
		if u, _ := bsonx.Get(reply, "user"); u == nil {
			t.Errorf("%s: reply %v has no user", tc.name, reply)
		}
	}
}
