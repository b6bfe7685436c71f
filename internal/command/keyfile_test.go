package command

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/auth"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestSystemUserLookup: __system@local exists only with a key file, and
// only on local; its privileges are the __system role's.
func TestSystemUserLookup(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	if _, err := d.credentialLookup("local")("__system"); !errors.Is(err, auth.ErrUserNotFound) {
		t.Fatalf("without a key file: %v", err)
	}
	if err := d.SetKeyFile(&auth.KeyFile{Path: "k", Keys: []string{"abcdefgh", "ijklmnop"}}); err != nil {
		t.Fatal(err)
	}
	creds, err := d.credentialLookup("local")("__system")
	if err != nil || creds.SHA1 == nil || creds.SHA256 == nil || len(creds.Others) != 1 {
		t.Fatalf("with a key file: %+v, %v", creds, err)
	}
	if _, err := d.credentialLookup("admin")("__system"); !errors.Is(err, auth.ErrUserNotFound) {
		t.Fatalf("__system@admin: %v", err)
	}
	if d.userPrivileges("local", "__system") == nil || d.userPrivileges("admin", "__system") != nil {
		t.Fatal("privileges: want the __system role for __system@local only")
	}
	if err := d.SetKeyFile(&auth.KeyFile{Path: "empty"}); err == nil {
		t.Fatal("a key file without keys accepted")
	}
}

// TestInternalConnUnderAuth: with --auth the process's own commands
// (localRunner: the config server's balancer and migration commits) run as
// __system, while an unauthenticated client is refused.
func TestInternalConnUnderAuth(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	d.SetAuth(true)
	find := bson.D{{Key: "find", Value: "c"}}
	if _, err := (localRunner{d: d}).Run(context.Background(), "db", find); err != nil {
		t.Fatalf("local runner under --auth: %v", err)
	}
	var reply bson.D
	if err := bson.Unmarshal(d.run(NewConn(1, "10.0.0.1:5000", ""), "db", find, &Request{}), &reply); err != nil {
		t.Fatal(err)
	}
	if err := replyErr(reply); err == nil || err.Code != mongoerr.Unauthorized {
		t.Fatalf("unauthenticated find: %v", reply)
	}
}

// replyErr is a reply's error code, or nil for ok:1.
func replyErr(reply bson.D) *mongoerr.Error {
	for _, e := range reply {
		if e.Key == "code" {
			n, _ := e.Value.(int32)
			return &mongoerr.Error{Code: mongoerr.Code(n)}
		}
	}
	return nil
}
