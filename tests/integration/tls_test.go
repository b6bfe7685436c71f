package integration

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/tlsconf"
	"github.com/relaydb/relaydb/tests/harness"
)

// tlsConnect connects to s with extra URI query options and pings.
func tlsConnect(t *testing.T, s *harness.Server, query string) (*mongo.Client, error) {
	t.Helper()
	uri := fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true&serverSelectionTimeoutMS=2000", s.Port())
	if query != "" {
		uri += "&" + query
	}
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c, c.Ping(tctx(t, opTimeout), nil)
}

// The Go driver over TLS against each mode: requireTLS refuses plain
// clients (and logs them), allowTLS and preferTLS serve both.
func TestTLSModes(t *testing.T) {
	f := harness.TLSFiles(t)
	for _, mode := range []string{"allowTLS", "preferTLS", "requireTLS"} {
		t.Run(mode, func(t *testing.T) {
			tlsq := harness.TLSQuery(f, f.ClientFile)
			s := harness.Start(t, harness.WithArgs(harness.TLSArgs(f, mode)...), harness.WithURIOptions(tlsq))
			c, err := tlsConnect(t, s, tlsq)
			if err != nil {
				t.Fatalf("TLS client: %v", err)
			}
			coll := freshColl(t, c, "tls")
			if _, err := coll.InsertOne(tctx(t, opTimeout), bson.D{{Key: "x", Value: 1}}); err != nil {
				t.Fatalf("insert over TLS: %v", err)
			}
			_, err = tlsConnect(t, s, "")
			if mode == "requireTLS" {
				if err == nil {
					t.Fatal("requireTLS served a plain client")
				}
				log, _ := os.ReadFile(s.LogPath())
				if !strings.Contains(string(log), "TLS is required") {
					t.Fatal("the refused plain connection was not logged")
				}
				return
			}
			if err != nil {
				t.Fatalf("%s refused a plain client: %v", mode, err)
			}
		})
	}
}

// A client certificate is required (unless allowed) and must come from
// the CAFile's CA.
func TestTLSClientCertificates(t *testing.T) {
	f, other := harness.TLSFiles(t), harness.TLSFiles(t)
	s := harness.Start(t, harness.WithArgs(harness.TLSArgs(f, "requireTLS")...), harness.WithURIOptions(harness.TLSQuery(f, f.ClientFile)))
	if _, err := tlsConnect(t, s, harness.TLSQuery(f, "")); err == nil {
		t.Fatal("a client without a certificate was served")
	}
	if _, err := tlsConnect(t, s, harness.TLSQuery(f, other.ClientFile)); err == nil {
		t.Fatal("a certificate from another CA was accepted")
	}
	// A server certificate the client's CA did not sign is refused by the driver.
	if _, err := tlsConnect(t, s, harness.TLSQuery(other, other.ClientFile)); err == nil {
		t.Fatal("the driver accepted a server certificate from another CA")
	}
}

// Startup refuses bad TLS options with a message naming them.
func TestTLSStartupErrors(t *testing.T) {
	f := harness.TLSFiles(t)
	cases := map[string]struct {
		args []string
		want string
	}{
		"no certificate": {[]string{"--tlsMode", "requireTLS", "--tlsCAFile", f.CAFile}, "needs net.tls.certificateKeyFile"},
		"missing file":   {[]string{"--tlsMode", "requireTLS", "--tlsCAFile", f.CAFile, "--tlsCertificateKeyFile", f.CAFile + ".none"}, "no such file"},
		"CA as key file": {[]string{"--tlsMode", "requireTLS", "--tlsCAFile", f.CAFile, "--tlsCertificateKeyFile", f.CAFile}, "private key"},
		"legacy ssl":     {[]string{"--sslMode", "requireSSL"}, "use --tlsMode"},
		"password":       {[]string{"--tlsMode", "requireTLS", "--tlsCAFile", f.CAFile, "--tlsCertificateKeyFile", f.MemberFile, "--tlsCertificateKeyFilePassword", "x"}, "not supported"},
	}
	for name, c := range cases {
		out := runServeExpectFailure(t, c.args...)
		if !strings.Contains(out, c.want) {
			t.Errorf("%s: output %q does not say %q", name, out, c.want)
		}
	}
}

// x509Client logs in with MONGODB-X509 presenting certFile.
func x509Client(t *testing.T, s *harness.Server, f tlsconf.Files, certFile, user string) (*mongo.Client, error) {
	q := harness.TLSQuery(f, certFile) + "&authMechanism=MONGODB-X509"
	if user != "" {
		q += "&authSource=$external"
		uri := fmt.Sprintf("mongodb://%s@127.0.0.1:%d/?directConnection=true&serverSelectionTimeoutMS=2000&%s", url.PathEscape(user), s.Port(), q)
		c, err := mongo.Connect(options.Client().ApplyURI(uri))
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
		return c, c.Ping(tctx(t, opTimeout), nil)
	}
	return tlsConnect(t, s, q)
}

// MONGODB-X509: a user created on $external named by the client
// certificate's subject logs in with it and gets its roles; other
// certificates, a different user name or no certificate fail with
// AuthenticationFailed (18).
func TestX509Login(t *testing.T) {
	f := harness.TLSFiles(t)
	s := harness.Start(t, harness.WithArgs(harness.TLSArgs(f, "requireTLS", "--auth", "--tlsAllowConnectionsWithoutCertificates")...),
		harness.WithURIOptions(harness.TLSQuery(f, f.ClientFile)))
	admin, err := tlsConnect(t, s, harness.TLSQuery(f, ""))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, admin, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{"root"}}}); err != nil {
		t.Fatalf("createUser root: %v", err)
	}
	rootURI := fmt.Sprintf("mongodb://root:pw@127.0.0.1:%d/?directConnection=true&authSource=admin&%s", s.Port(), harness.TLSQuery(f, ""))
	rc, err := mongo.Connect(options.Client().ApplyURI(rootURI))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Disconnect(context.Background())
	if f.ClientUser != "CN=client,OU=clients,O=relaydb" {
		t.Fatalf("client subject %q", f.ClientUser)
	}
	if _, err := runCmd(t, rc, "$external", bson.D{{Key: "createUser", Value: f.ClientUser}, {Key: "pwd", Value: "x"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "app"}}}}}); cmdCode(err) != 2 {
		t.Fatalf("createUser on $external with a password: %v, want BadValue", err)
	}
	if _, err := runCmd(t, rc, "$external", bson.D{{Key: "createUser", Value: f.ClientUser},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "app"}}}}}); err != nil {
		t.Fatalf("createUser on $external: %v", err)
	}

	// Logged in by certificate, with and without the user name, with
	// readWrite on app only.
	for _, user := range []string{"", f.ClientUser} {
		c, err := x509Client(t, s, f, f.ClientFile, user)
		if err != nil {
			t.Fatalf("x509 login (user %q): %v", user, err)
		}
		ctx := tctx(t, opTimeout)
		if _, err := c.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
			t.Fatalf("insert as x509 user: %v", err)
		}
		if _, err := c.Database("other").Collection("c").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); cmdCode(err) != 13 {
			t.Fatalf("insert into another db: %v, want Unauthorized", err)
		}
		st, err := runCmd(t, c, "admin", bson.D{{Key: "connectionStatus", Value: 1}})
		if err != nil || !strings.Contains(fmt.Sprint(st["authInfo"]), f.ClientUser) {
			t.Fatalf("connectionStatus: %v %v", st, err)
		}
	}

	// Failures: a different user name, no certificate, a certificate
	// whose subject is no user (the member certificate).
	withCert, err := tlsConnect(t, s, harness.TLSQuery(f, f.ClientFile))
	if err != nil {
		t.Fatal(err)
	}
	x509Cmd := func(user string) bson.D {
		return bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}, {Key: "user", Value: user}}
	}
	_, err = runCmd(t, withCert, "$external", x509Cmd("CN=someone,O=relaydb"))
	if cmdCode(err) != 18 || !strings.Contains(err.Error(), "There is no x.509 client certificate matching the user.") {
		t.Fatalf("authenticate as another user: %v", err)
	}
	if reply, err := runCmd(t, withCert, "$external", x509Cmd(f.ClientUser)); err != nil || reply["user"] != f.ClientUser || reply["dbname"] != "$external" {
		t.Fatalf("authenticate naming the subject: %v %v", reply, err)
	}
	if _, err := x509Client(t, s, f, "", ""); !isAuthFailed(err) {
		t.Fatalf("x509 without a certificate: %v", err)
	}
	if _, err := x509Client(t, s, f, f.MemberFile, ""); !isAuthFailed(err) {
		t.Fatalf("x509 with an unknown subject: %v", err)
	}
	member, err := tlsConnect(t, s, harness.TLSQuery(f, f.MemberFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err = runCmd(t, member, "$external", x509Cmd("")); cmdCode(err) != 18 {
		t.Fatalf("authenticate as a subject with no user: %v, want AuthenticationFailed", err)
	}
	// The authenticate command's errors, as MongoDB's.
	noCert, err := tlsConnect(t, s, harness.TLSQuery(f, ""))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runCmd(t, noCert, "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}})
	if cmdCode(err) != 18 || !strings.Contains(err.Error(), "No verified subject name available from client") {
		t.Fatalf("authenticate without a certificate: %v", err)
	}
	_, err = runCmd(t, noCert, "admin", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}})
	if cmdCode(err) != 17 {
		t.Fatalf("authenticate on admin: %v, want ProtocolError", err)
	}
}

// isAuthFailed reports whether err carries AuthenticationFailed (18).
func isAuthFailed(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "AuthenticationFailed") || strings.Contains(err.Error(), "(18)") ||
		strings.Contains(err.Error(), "No verified subject") || strings.Contains(err.Error(), "x.509"))
}

// A 3-member replica set with requireTLS elects a primary and replicates:
// members reach each other only over TLS (plain connections are refused),
// verifying each other's certificate and host name.
func TestTLSReplicaSet(t *testing.T) {
	f := harness.TLSFiles(t)
	tlsq := harness.TLSQuery(f, f.ClientFile)
	members, hosts := startTLSSet(t, f, "tlsrs")
	uri := fmt.Sprintf("mongodb://%s/?replicaSet=tlsrs&serverSelectionTimeoutMS=30000&%s", strings.Join(hosts, ","), tlsq)
	rs, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Disconnect(context.Background())
	ctx := tctx(t, 60*time.Second)
	coll := rs.Database("app").Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 3}))
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatalf("insert w:3 over TLS: %v", err)
	}
	// The primary learns its secondaries' states from heartbeats.
	var states map[string]int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var st struct {
			Members []struct {
				StateStr string `bson:"stateStr"`
			} `bson:"members"`
		}
		if err := rs.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&st); err != nil {
			t.Fatal(err)
		}
		states = map[string]int{}
		for _, m := range st.Members {
			states[m.StateStr]++
		}
		if states["PRIMARY"] == 1 && states["SECONDARY"] == 2 {
			break
		}
	}
	if states["PRIMARY"] != 1 || states["SECONDARY"] != 2 {
		t.Fatalf("member states %v", states)
	}
	for i, m := range members { // each member holds the document
		c, err := tlsConnect(t, m, tlsq)
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.Database("app").Collection("c").CountDocuments(ctx, bson.D{})
		if err != nil || n != 1 {
			t.Fatalf("member %d: %d documents, %v", i, n, err)
		}
		if log, _ := os.ReadFile(m.LogPath()); strings.Contains(string(log), "TLS is required") {
			t.Fatalf("member %d refused a plain connection (a member dialled without TLS)", i)
		}
	}
}
