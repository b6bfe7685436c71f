package repl

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
)

// TestPymongoSuiteBugs (issue #14 item 10) checks, on one 3-member set,
// the replica-set bugs pymongo's own test suite found: each subtest
// failed before its fix.
func TestPymongoSuiteBugs(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3})
	p := primary(t, c, 10*time.Second)
	run := func(t *testing.T, db string, cmd bson.D) bson.Raw {
		t.Helper()
		r, err := rawCommand(p.Host, append(append(bson.D{}, cmd...), bson.E{Key: "$db", Value: db}))
		if err != nil {
			t.Fatalf("%s: %v", cmd[0].Key, err)
		}
		return r
	}
	t.Run("failedRenameReportsWriteConcernError", func(t *testing.T) {
		// pymongo's test_raise_write_concern_error: w: 4 on three members,
		// a rename onto an existing collection: code 48 and the WCE.
		run(t, "bugs", bson.D{{Key: "create", Value: "a"}})
		run(t, "bugs", bson.D{{Key: "create", Value: "b"}})
		r := run(t, "admin", bson.D{{Key: "renameCollection", Value: "bugs.a"}, {Key: "to", Value: "bugs.b"},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(4)}, {Key: "wtimeout", Value: int32(1)}}}})
		ok, code, _ := replyCode(r)
		wce, _ := r.Lookup("writeConcernError").DocumentOK()
		wc, _ := wceCode(wce)
		if ok != 0 || code != 48 || wc != 100 {
			t.Fatalf("rename onto an existing target with w:4: %v; want code 48 and writeConcernError 100", r)
		}
	})
	t.Run("transactionStatements", func(t *testing.T) {
		// A statement with startTransaction runs in a transaction (it once
		// ran outside any), commitTransaction commits it (it once answered
		// the standalone's 20), and commitTransaction outside a session is
		// InvalidOptions (72).
		lsid := bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("bugs-txn-lsid-01")}}}
		txn := []bson.E{{Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}
		insert := append(bson.D{{Key: "insert", Value: "txn"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}}},
			{Key: "startTransaction", Value: true}}, txn...)
		if ok, code, _ := replyCode(run(t, "bugs", insert)); ok != 1 {
			t.Fatalf("insert with startTransaction: ok %v code %d", ok, code)
		}
		count := func() int32 {
			r := run(t, "bugs", bson.D{{Key: "count", Value: "txn"}})
			n, _ := r.Lookup("n").Int32OK()
			return n
		}
		if n := count(); n != 0 {
			t.Fatalf("an open transaction's insert is visible outside it: count %d", n)
		}
		if ok, code, _ := replyCode(run(t, "admin", append(bson.D{{Key: "commitTransaction", Value: int32(1)}}, txn...))); ok != 1 {
			t.Fatalf("commitTransaction: ok %v code %d", ok, code)
		}
		if n := count(); n != 1 {
			t.Fatalf("after commitTransaction: count %d, want 1", n)
		}
		if ok, code, _ := replyCode(run(t, "admin", bson.D{{Key: "commitTransaction", Value: int32(1)}})); ok != 0 || code != 72 {
			t.Errorf("commitTransaction outside a session: ok %v code %d, want InvalidOptions (72)", ok, code)
		}
	})
	t.Run("failCommandSparesReplication", func(t *testing.T) {
		// A fail point on find/getMore must not stop the secondaries'
		// oplog fetchers (mongod exempts internal clients).
		fp := bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "alwaysOn"},
			{Key: "data", Value: bson.D{{Key: "failCommands", Value: bson.A{"find", "getMore"}}, {Key: "errorCode", Value: int32(2)}}}}
		if ok, _, _ := replyCode(run(t, "admin", fp)); ok != 1 {
			t.Fatal("configureFailPoint refused")
		}
		defer run(t, "admin", bson.D{{Key: "configureFailPoint", Value: "failCommand"}, {Key: "mode", Value: "off"}})
		if ok, code, _ := replyCode(run(t, "bugs", bson.D{{Key: "find", Value: "a"}})); ok != 0 || code != 2 {
			t.Fatalf("a client's find under the fail point: ok %v code %d, want code 2", ok, code)
		}
		r := run(t, "bugs", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "x", Value: 1}}}},
			{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(3)}, {Key: "wtimeout", Value: int32(5000)}}}})
		if ok, _, _ := replyCode(r); ok != 1 || r.Lookup("writeConcernError").Value != nil {
			t.Fatalf("insert w:3 with find/getMore failing for clients: %v; the secondaries stopped replicating", r)
		}
	})
	t.Run("stepDownForce", func(t *testing.T) {
		// {replSetStepDown: 5, force: true}: MongoDB's catch-up period
		// defaults to 0 with force, so 5 s is valid.
		r, err := rawCommand(p.Host, bson.D{{Key: "replSetStepDown", Value: int32(5)}, {Key: "force", Value: true}, {Key: "$db", Value: "admin"}})
		if err == nil {
			if ok, code, _ := replyCode(r); ok != 1 {
				t.Fatalf("replSetStepDown force: ok %v code %d: %v", ok, code, r)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for ctx.Err() == nil {
			for _, m := range c.Status(ctx).Members {
				if m.Name == p.Name && m.State == "SECONDARY" {
					return
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%s still not SECONDARY after a forced step-down", p.Name)
	})
}
