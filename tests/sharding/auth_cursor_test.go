package sharding

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestRouterCursorOwnership: through a router with auth, two users with
// read on app: B can neither getMore nor kill A's cursors (a shard's
// cursor the router passes through, from an unsharded find on the fast
// path, and a router cursor merging both shards), A can; the refusals
// leave the cursors usable. Root may kill them (killAnyCursor), not
// continue them.
func TestRouterCursorOwnership(t *testing.T) {
	sc := startSecuredCluster(t)
	read := bson.A{bson.D{{Key: "role", Value: "read"}, {Key: "db", Value: "app"}}}
	sc.createUser(t, "a", read)
	sc.createUser(t, "b", read)
	a, b := routerClient(t, sc.r, "a", "pw", "app"), routerClient(t, sc.r, "b", "pw", "app")
	ctx := ctxT(t)
	for _, tc := range []struct {
		what string
		coll string
		open bson.D
	}{
		{"unsharded find", "u", bson.D{{Key: "find", Value: "u"}, {Key: "batchSize", Value: 2}}},
		{"sharded sorted find", "s", bson.D{{Key: "find", Value: "s"}, {Key: "sort", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "batchSize", Value: 2}}},
		{"sharded aggregate", "s", bson.D{{Key: "aggregate", Value: "s"}, {Key: "pipeline", Value: bson.A{}},
			{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}}},
	} {
		reply, err := runDoc(ctx, a, "app", tc.open)
		must(t, err, "%s", tc.what)
		id, n := cursorOf(reply, "firstBatch")
		if id == 0 || n != 2 {
			t.Fatalf("%s: cursor %d, first batch of %d: %v", tc.what, id, n, reply)
		}
		more := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: tc.coll}, {Key: "batchSize", Value: 2}}
		kill := bson.D{{Key: "killCursors", Value: tc.coll}, {Key: "cursors", Value: bson.A{id}}}
		_, err = runDoc(ctx, b, "app", more)
		wantErr(t, err, 13, "was not created by the authenticated user", tc.what+": B's getMore")
		_, err = runDoc(ctx, b, "app", kill)
		wantErr(t, err, 13, "not authorized to kill cursor on app."+tc.coll, tc.what+": B's killCursors")
		reply, err = runDoc(ctx, a, "app", more)
		must(t, err, "%s: A's getMore", tc.what)
		if _, n := cursorOf(reply, "nextBatch"); n != 2 {
			t.Errorf("%s: A's getMore returned %d documents: %v", tc.what, n, reply)
		}
		reply, err = runDoc(ctx, a, "app", kill)
		must(t, err, "%s: A's killCursors", tc.what)
		var killed bson.A
		for _, e := range reply {
			if e.Key == "cursorsKilled" {
				killed, _ = e.Value.(bson.A)
			}
		}
		if len(killed) != 1 {
			t.Errorf("%s: A's killCursors: %v", tc.what, reply)
		}
	}
	// The root user may kill another user's cursor (killAnyCursor).
	reply, err := runDoc(ctx, a, "app", bson.D{{Key: "find", Value: "u"}, {Key: "batchSize", Value: 2}})
	must(t, err, "find")
	id, _ := cursorOf(reply, "firstBatch")
	_, err = runDoc(ctx, sc.boss, "app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "u"}})
	wantErr(t, err, 13, "was not created by the authenticated user", "root's getMore")
	_, err = runDoc(ctx, sc.boss, "app", bson.D{{Key: "killCursors", Value: "u"}, {Key: "cursors", Value: bson.A{id}}})
	must(t, err, "root's killCursors of another user's cursor")
	_, err = runDoc(ctx, a, "app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "u"}})
	wantErr(t, err, 43, "", "getMore after root killed the cursor")
}
