package integration

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// loginFrom logs in as user from the loopback address local and pings.
func loginFrom(t *testing.T, s *harness.Server, local, user, pass, mech string) error {
	t.Helper()
	uri := fmt.Sprintf("mongodb://%s:%s@127.0.0.1:%d/?directConnection=true&authSource=admin&authMechanism=%s", user, pass, s.Port(), mech)
	d := &net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetDialer(d).SetServerSelectionTimeout(3 * time.Second))
	if err != nil {
		return err
	}
	defer c.Disconnect(context.Background())
	return c.Ping(tctx(t, opTimeout), nil)
}

// TestAuthRestrictions: a user's authenticationRestrictions (clientSource,
// serverAddress) decide where it may log in from, over SCRAM-SHA-1 and
// -256; updateUser changes them; usersInfo shows them when asked; bad
// entries are BadValue; setting them needs setAuthenticationRestriction.
func TestAuthRestrictions(t *testing.T) {
	s, anon := startServer(t, harness.WithArgs("--auth"))
	if _, err := runCmd(t, anon, "admin", bson.D{{Key: "createUser", Value: "root"}, {Key: "pwd", Value: "p"}, {Key: "roles", Value: bson.A{"root"}}}); err != nil {
		t.Fatal(err)
	}
	root, err := loginClient(t, s, "root", "p", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	only2 := bson.A{bson.D{{Key: "clientSource", Value: bson.A{"127.0.0.2"}}}}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "createUser", Value: "r"}, {Key: "pwd", Value: "q"},
		{Key: "roles", Value: bson.A{"readWrite"}}, {Key: "authenticationRestrictions", Value: only2}}); err != nil {
		t.Fatal(err)
	}
	for _, mech := range []string{"SCRAM-SHA-256", "SCRAM-SHA-1"} {
		if err := loginFrom(t, s, "127.0.0.2", "r", "q", mech); err != nil {
			t.Errorf("%s from 127.0.0.2 (allowed): %v", mech, err)
		}
		if err := loginFrom(t, s, "127.0.0.3", "r", "q", mech); cmdCode(err) != 18 {
			t.Errorf("%s from 127.0.0.3 (outside clientSource): %v, want 18", mech, err)
		}
	}
	serverOnly := bson.A{bson.D{{Key: "clientSource", Value: bson.A{"127.0.0.0/8"}}, {Key: "serverAddress", Value: bson.A{"10.9.9.9"}}}}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "updateUser", Value: "r"}, {Key: "authenticationRestrictions", Value: serverOnly}}); err != nil {
		t.Fatal(err)
	}
	if err := loginFrom(t, s, "127.0.0.2", "r", "q", "SCRAM-SHA-256"); cmdCode(err) != 18 {
		t.Errorf("login to a server address outside serverAddress: %v, want 18", err)
	}
	info, err := runCmd(t, root, "admin", bson.D{{Key: "usersInfo", Value: "r"}, {Key: "showAuthenticationRestrictions", Value: true}})
	if err != nil || fmt.Sprint(info["users"]) == "" || !strings.Contains(fmt.Sprint(info["users"]), "10.9.9.9") {
		t.Errorf("usersInfo showAuthenticationRestrictions: %v, %v", info, err)
	}
	plain, _ := runCmd(t, root, "admin", bson.D{{Key: "usersInfo", Value: "r"}})
	if strings.Contains(fmt.Sprint(plain["users"]), "10.9.9.9") {
		t.Errorf("usersInfo shows restrictions unasked: %v", plain)
	}
	bad := bson.A{bson.D{{Key: "clientSource", Value: bson.A{"127.0.0.300"}}}}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "createUser", Value: "b"}, {Key: "pwd", Value: "q"},
		{Key: "roles", Value: bson.A{}}, {Key: "authenticationRestrictions", Value: bad}}); cmdCode(err) != 2 {
		t.Errorf("bad clientSource: %v, want BadValue", err)
	}
	if _, err := runCmd(t, root, "admin", bson.D{{Key: "createUser", Value: "ua"}, {Key: "pwd", Value: "q"},
		{Key: "roles", Value: bson.A{bson.D{{Key: "role", Value: "readWrite"}, {Key: "db", Value: "admin"}}}}}); err != nil {
		t.Fatal(err)
	}
	rw, err := loginClient(t, s, "ua", "q", "SCRAM-SHA-256")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runCmd(t, rw, "admin", bson.D{{Key: "updateUser", Value: "ua"}, {Key: "authenticationRestrictions", Value: bson.A{}}}); cmdCode(err) != 13 {
		t.Errorf("readWrite user setting restrictions: %v, want 13", err)
	}
}
