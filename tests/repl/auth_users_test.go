package repl

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestUsersReplicate: createUser / updateUser / dropUser on the primary
// (a set without --auth; tests/repl/keyfile_test.go runs one with it) replicate through the
// oplog; a SCRAM login succeeds on every secondary with the replicated
// credentials, and a dropped user is gone everywhere.
func TestUsersReplicate(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 15*time.Second)
	user := fmt.Sprintf("u%d", time.Now().UnixNano())
	pc := direct(t, c, p)
	run := func(cmd bson.D) error {
		ctx, cancel := ctxT(10 * time.Second)
		defer cancel()
		return pc.Database("admin").RunCommand(ctx, cmd).Err()
	}
	maj := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}}}
	if err := run(bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: "first"}, {Key: "roles", Value: bson.A{"root"}}, maj}); err != nil {
		t.Fatalf("createUser: %v", err)
	}
	if err := run(bson.D{{Key: "updateUser", Value: user}, {Key: "pwd", Value: "second"}, maj}); err != nil {
		t.Fatalf("updateUser: %v", err)
	}
	for _, m := range secondaries(c, p) {
		eventually(t, 10*time.Second, "login on "+m.Name, func() error { return scramPing(m.Host, user, "second") })
		if err := scramPing(m.Host, user, "first"); err == nil || !strings.Contains(err.Error(), "Authentication failed.") {
			t.Fatalf("old password on %s: %v", m.Name, err)
		}
	}
	if err := run(bson.D{{Key: "dropUser", Value: user}, maj}); err != nil {
		t.Fatalf("dropUser: %v", err)
	}
	for _, m := range secondaries(c, p) {
		eventually(t, 10*time.Second, "user dropped on "+m.Name, func() error {
			if err := scramPing(m.Host, user, "second"); err == nil {
				return fmt.Errorf("login still succeeds")
			}
			return nil
		})
	}
}

// scramPing logs in to host directly with SCRAM-SHA-256 and pings.
func scramPing(host, user, pass string) error {
	uri := fmt.Sprintf("mongodb://%s:%s@%s/?directConnection=true&authSource=admin&authMechanism=SCRAM-SHA-256&serverSelectionTimeoutMS=3000", user, pass, host)
	return pingWith(uri)
}
