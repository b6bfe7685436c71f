package integration

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// clientFirst is a syntactically valid SCRAM client-first message.
var clientFirst = []byte("n,,n=root,r=fyko+d2lbbFgONRv9qkxdawL")

// TestAuthMechanismsParameter: --setParameter
// authenticationMechanisms=SCRAM-SHA-256 limits what the server accepts
// (SCRAM-SHA-1 and MONGODB-X509 are MechanismUnavailable, 334, before
// any user lookup), saslSupportedMechs lists only SCRAM-SHA-256 and
// getParameter reports the list; the default lists both SCRAMs; an
// unsupported name stops the start.
func TestAuthMechanismsParameter(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth", "--setParameter", "authenticationMechanisms=SCRAM-SHA-256"))
	runOK(t, anon, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"root"}}})
	if _, err := loginClient(t, s, "root", "p", "SCRAM-SHA-256"); err != nil {
		t.Fatalf("SCRAM-SHA-256 login: %v", err)
	}
	if _, err := loginClient(t, s, "root", "p", "SCRAM-SHA-1"); err == nil {
		t.Fatal("SCRAM-SHA-1 login accepted while disabled")
	}
	start := func(mech string) bson.D {
		return bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: mech}, {Key: "payload", Value: bson.Binary{Data: clientFirst}}}
	}
	wantRoleErr(t, anon, "admin", start("SCRAM-SHA-1"), 334, "SCRAM-SHA-1")
	wantRoleErr(t, anon, "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}}, 334, "MONGODB-X509")
	if _, err := runCmd(t, anon, "admin", start("SCRAM-SHA-256")); err != nil {
		t.Fatalf("saslStart SCRAM-SHA-256: %v", err)
	}
	hello := runOK(t, anon, "admin", bson.D{{Key: "hello", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.root"}})
	if got := hello["saslSupportedMechs"]; !reflect.DeepEqual(got, bson.A{"SCRAM-SHA-256"}) {
		t.Errorf("saslSupportedMechs = %v, want [SCRAM-SHA-256]", got)
	}
	root := loginAs(t, s, "root")
	checkMechParam(t, runOK(t, root, "admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "authenticationMechanisms", Value: 1}}), bson.A{"SCRAM-SHA-256"})

	_, plain := startServer(t)
	checkMechParam(t, runOK(t, plain, "admin", bson.D{{Key: "getParameter", Value: "*"}}), bson.A{"SCRAM-SHA-1", "SCRAM-SHA-256"})

	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(tctx(t, opTimeout), bin, "serve", "--inMemory", "--port", "1", "--setParameter", "authenticationMechanisms=PLAIN").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "PLAIN") {
		t.Fatalf("authenticationMechanisms=PLAIN: want a startup error naming it, got %v: %s", err, out)
	}
}

func checkMechParam(t *testing.T, reply bson.M, want bson.A) {
	t.Helper()
	if got := reply["authenticationMechanisms"]; !reflect.DeepEqual(got, want) {
		t.Errorf("getParameter authenticationMechanisms = %v, want %v", got, want)
	}
}
