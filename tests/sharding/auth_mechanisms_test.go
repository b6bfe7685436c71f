package sharding

import (
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouterAuthMechanisms: a router started with --setParameter
// authenticationMechanisms=SCRAM-SHA-256 refuses SCRAM-SHA-1 and
// MONGODB-X509 (MechanismUnavailable, 334), lists only SCRAM-SHA-256 in
// saslSupportedMechs and getParameter, and logs users in with it.
func TestRouterAuthMechanisms(t *testing.T) {
	keyFile, key := writeKeyFile(t)
	cfg := startKeyedSet(t, "mcfg", "--configsvr", keyFile, key)
	r := harness.StartRouter(t, "mcfg/"+cfg, "--keyFile", keyFile, "--setParameter", "authenticationMechanisms=SCRAM-SHA-256")
	ctx := ctxT(t)
	anon := routerClient(t, r, "", "", "")
	root := bson.A{bson.D{{Key: "role", Value: "root"}, {Key: "db", Value: "admin"}}}
	must(t, anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "boss"}, {Key: "pwd", Value: "boss-pw"},
		{Key: "roles", Value: root}}).Err(), "createUser through the localhost exception")
	start := func(mech string) bson.D {
		return bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: mech},
			{Key: "payload", Value: bson.Binary{Data: []byte("n,,n=boss,r=fyko+d2lbbFgONRv9qkxdawL")}}}
	}
	_, err := runDoc(ctx, anon, "admin", start("SCRAM-SHA-1"))
	wantErr(t, err, 334, "SCRAM-SHA-1", "saslStart SCRAM-SHA-1")
	_, err = runDoc(ctx, anon, "$external", bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-X509"}})
	wantErr(t, err, 334, "MONGODB-X509", "authenticate MONGODB-X509")
	_, err = runDoc(ctx, anon, "admin", start("SCRAM-SHA-256"))
	must(t, err, "saslStart SCRAM-SHA-256")
	var hello struct {
		Mechs []string `bson:"saslSupportedMechs"`
	}
	must(t, anon.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}, {Key: "saslSupportedMechs", Value: "admin.boss"}}).Decode(&hello), "hello")
	if !reflect.DeepEqual(hello.Mechs, []string{"SCRAM-SHA-256"}) {
		t.Errorf("saslSupportedMechs = %v", hello.Mechs)
	}
	boss := routerClient(t, r, "boss", "boss-pw", "admin")
	var got struct {
		Mechs []string `bson:"authenticationMechanisms"`
	}
	must(t, boss.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: "*"}}).Decode(&got), "getParameter")
	if !reflect.DeepEqual(got.Mechs, []string{"SCRAM-SHA-256"}) {
		t.Errorf("getParameter authenticationMechanisms = %v", got.Mechs)
	}
}
