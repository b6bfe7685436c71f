package integration

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// TestAuthCursorOwnership: two users with find on the same collection; B
// can neither getMore nor kill A's cursor (Unauthorized, the cursor left
// as it was), A can; root may kill it (killAnyCursor) but not continue it.
func TestAuthCursorOwnership(t *testing.T) {
	s, root := rolesSetup(t, map[string]bson.A{"a": {role("read", "app")}, "b": {role("read", "app")}})
	ctx := tctx(t, opTimeout)
	docs := make([]any, 10)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := root.Database("app").Collection("c").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	a, b := loginAs(t, s, "a"), loginAs(t, s, "b")
	id := openCursor(t, a)
	more := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: 2}}
	kill := bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id}}}

	wantRoleErr(t, b, "app", more, 13, "was not created by the authenticated user")
	wantRoleErr(t, b, "app", kill, 13, "not authorized to kill cursor on app.c")
	if out := runOK(t, a, "app", more); len(cursorBatch(t, out, "nextBatch")) != 2 {
		t.Fatalf("owner's getMore after the refusals: %v", out)
	}
	out := runOK(t, a, "app", kill)
	if killed, _ := out["cursorsKilled"].(bson.A); len(killed) != 1 {
		t.Fatalf("owner's killCursors: %v", out)
	}
	// Root (another user) cannot continue it either, but may kill it
	// (killAnyCursor); a missing cursor is not found.
	id2 := openCursor(t, a)
	wantRoleErr(t, root, "app", bson.D{{Key: "getMore", Value: id2}, {Key: "collection", Value: "c"}}, 13, "was not created")
	out = runOK(t, root, "app", bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id2}}})
	if killed, _ := out["cursorsKilled"].(bson.A); len(killed) != 1 {
		t.Fatalf("root's killCursors of another user's cursor: %v", out)
	}
	wantRoleErr(t, b, "app", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}, 43, "not found")
}

// openCursor runs a find with batchSize 2 and returns its cursor id.
func openCursor(t *testing.T, c *mongo.Client) int64 {
	t.Helper()
	out := runOK(t, c, "app", bson.D{{Key: "find", Value: "c"}, {Key: "batchSize", Value: 2}})
	cur, _ := out["cursor"].(bson.D)
	id, _ := dget(cur, "id").(int64)
	if id == 0 {
		t.Fatalf("find opened no cursor: %v", out)
	}
	return id
}

func cursorBatch(t *testing.T, out bson.M, key string) bson.A {
	t.Helper()
	cur, _ := out["cursor"].(bson.D)
	batch, ok := dget(cur, key).(bson.A)
	if !ok {
		t.Fatalf("reply has no cursor.%s: %v", key, out)
	}
	return batch
}
