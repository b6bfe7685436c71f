package command

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// Issue #14 item 10: the bugs pymongo's own suite found, checked at the
// dispatcher (the integration tests in tests/repl/bugs_test.go check them
// on a real set).

// unsatisfiableRepl is a primary whose write-concern waits for w > 3 fail
// as a 3-member set's do.
type unsatisfiableRepl struct{ fakeRepl }

func (u *unsatisfiableRepl) WaitWriteConcern(ctx context.Context, ts bson.Timestamp, w any, j bool) error {
	if n, ok := w.(int64); ok && n > 3 {
		return mongoerr.New(mongoerr.UnsatisfiableWriteConcern, "Not enough data-bearing nodes")
	}
	return u.fakeRepl.WaitWriteConcern(ctx, ts, w, j)
}

func runIn(d *Dispatcher, db string, cmd bson.D) (bson.D, error) {
	ctx := &Ctx{D: d, DB: db, Name: cmd[0].Key, Cmd: cmd, Req: &Request{}}
	return d.invoke(registry[cmd[0].Key], ctx)
}

// TestFailedWriteWaitsForWriteConcern: a writing command that fails still
// waits for its write concern and answers both errors, as mongod does
// (pymongo's test_raise_write_concern_error renames onto an existing
// collection with w: 4 on three members and expects WriteConcernError).
func TestFailedWriteWaitsForWriteConcern(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, &unsatisfiableRepl{fakeRepl{primary: true}})
	if _, err := cat.CreateCollection("db", "d", nil); err != nil {
		t.Fatal(err)
	}
	wc := bson.E{Key: "writeConcern", Value: bson.D{{Key: "w", Value: int32(4)}}}
	_, err := runIn(d, "admin", bson.D{{Key: "renameCollection", Value: "db.c"}, {Key: "to", Value: "db.d"}, wc})
	if !mongoerr.Is(err, mongoerr.NamespaceExists) {
		t.Fatalf("rename onto an existing collection: %v, want NamespaceExists", err)
	}
	doc := ErrorDoc(err)
	wce, _ := bsonx.Get(doc, "writeConcernError")
	code, _ := bsonx.Get(asDoc(wce), "code")
	if code != int32(mongoerr.UnsatisfiableWriteConcern) {
		t.Fatalf("error reply %v: want writeConcernError code 100", doc)
	}
	// findAndModify failing (an _id change) waits too.
	if _, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	_, err = runIn(d, "db", bson.D{{Key: "findAndModify", Value: "c"}, {Key: "query", Value: bson.D{{Key: "_id", Value: int32(1)}}},
		{Key: "update", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: int32(2)}}}}}, wc})
	wce, _ = bsonx.Get(ErrorDoc(err), "writeConcernError")
	if code, _ := bsonx.Get(asDoc(wce), "code"); err == nil || code != int32(mongoerr.UnsatisfiableWriteConcern) {
		t.Fatalf("failed findAndModify with w:4: %v, writeConcernError %v", err, wce)
	}
	// A command refused before it runs (a bad write concern) has none.
	_, err = runIn(d, "db", bson.D{{Key: "create", Value: "e"}, {Key: "writeConcern", Value: bson.D{{Key: "w", Value: "x"}, {Key: "bogus", Value: 1}}}})
	if _, has := bsonx.Get(ErrorDoc(err), "writeConcernError"); err == nil || has {
		t.Fatalf("bad write concern: %v", err)
	}
}

// TestTransactionsRefused: a standalone refuses a transaction's statements
// and commit/abort (IllegalOperation); a replica-set member runs them, and
// refuses a commitTransaction outside a transaction (InvalidOptions).
func TestTransactionsRefused(t *testing.T) {
	txn := []bson.E{{Key: "lsid", Value: bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: make([]byte, 16)}}}},
		{Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}
	find := append(bson.D{{Key: "find", Value: "c"}, {Key: "startTransaction", Value: true}}, txn...)
	commit := append(bson.D{{Key: "commitTransaction", Value: int32(1)}}, txn...)
	bare := bson.D{{Key: "commitTransaction", Value: int32(1)}}
	for _, tc := range []struct {
		repl Replication
		want []mongoerr.Code // per command; OK: it runs
	}{
		{nil, []mongoerr.Code{mongoerr.IllegalOperation, mongoerr.IllegalOperation, mongoerr.IllegalOperation}},
		{&fakeRepl{primary: true}, []mongoerr.Code{mongoerr.OK, mongoerr.OK, mongoerr.InvalidOptions}},
	} {
		d, _, _ := newReadTestDispatcher(t, tc.repl)
		for i, cmd := range []bson.D{find, commit, bare} {
			db := "db"
			if cmd[0].Key == "commitTransaction" {
				db = "admin"
			}
			_, err := runIn(d, db, cmd)
			if tc.want[i] == mongoerr.OK && err != nil || tc.want[i] != mongoerr.OK && !mongoerr.Is(err, tc.want[i]) {
				t.Errorf("repl %v: %v: got %v, want code %d", tc.repl != nil, cmd[0].Key, err, tc.want[i])
			}
		}
	}
}

// TestSnapshotReadConcernOutsideTransaction: only find, aggregate and
// distinct take readConcern snapshot outside a transaction.
func TestSnapshotReadConcernOutsideTransaction(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	snap := bson.E{Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}}}
	for _, cmd := range []bson.D{
		{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{}}}, snap},
		{{Key: "listCollections", Value: int32(1)}, snap},
		{{Key: "listIndexes", Value: "c"}, snap},
		{{Key: "count", Value: "c"}, snap},
	} {
		if _, err := runRead(d, cmd); !mongoerr.Is(err, mongoerr.InvalidOptions) {
			t.Errorf("%s with readConcern snapshot: %v, want InvalidOptions", cmd[0].Key, err)
		}
	}
	// find keeps its own answer (a standalone: not a replica set).
	if _, err := runRead(d, bson.D{{Key: "find", Value: "c"}, snap}); mongoerr.Is(err, mongoerr.InvalidOptions) || err == nil {
		t.Errorf("find with readConcern snapshot on a standalone: %v", err)
	}
}

// TestStableAPIParams: apiVersion must be "1", apiStrict refuses commands
// outside API Version 1, and both flags need apiVersion.
func TestStableAPIParams(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	v := func(s any) bson.E { return bson.E{Key: "apiVersion", Value: s} }
	strict := bson.E{Key: "apiStrict", Value: true}
	cases := []struct {
		db   string
		cmd  bson.D
		want mongoerr.Code // 0: ok
	}{
		{"db", bson.D{{Key: "ping", Value: 1}, v("1"), strict}, 0},
		{"db", bson.D{{Key: "find", Value: "c"}, v("1"), strict}, 0},
		{"db", bson.D{{Key: "ping", Value: 1}, v("2")}, mongoerr.APIVersionError},
		{"db", bson.D{{Key: "ping", Value: 1}, v(int32(1))}, mongoerr.TypeMismatch},
		{"db", bson.D{{Key: "ping", Value: 1}, strict}, mongoerr.APIStrictWithoutVersion},
		{"db", bson.D{{Key: "ping", Value: 1}, {Key: "apiDeprecationErrors", Value: true}}, mongoerr.APIDeprecationWithoutVersion},
		{"db", bson.D{{Key: "buildInfo", Value: 1}, v("1"), strict}, mongoerr.APIStrictError},
		{"db", bson.D{{Key: "isMaster", Value: 1}, v("1"), strict}, mongoerr.APIStrictError},
		{"db", bson.D{{Key: "buildInfo", Value: 1}, v("1"), {Key: "apiStrict", Value: false}}, 0},
		{"admin", bson.D{{Key: "serverStatus", Value: 1}, v("1"), strict}, mongoerr.APIStrictError},
		{"db", bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "a"}, v("1"), strict}, mongoerr.APIStrictError},
		{"db", bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$listLocalSessions", Value: bson.D{}}}}},
			{Key: "cursor", Value: bson.D{}}, v("1"), strict}, mongoerr.APIStrictError},
		{"db", bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}},
			{Key: "cursor", Value: bson.D{}}, v("1"), strict}, 0},
	}
	for _, tc := range cases {
		_, err := runIn(d, tc.db, tc.cmd)
		switch {
		case tc.want == 0 && err != nil:
			t.Errorf("%v: %v, want ok", tc.cmd, err)
		case tc.want != 0 && !mongoerr.Is(err, tc.want):
			t.Errorf("%v: %v, want code %d", tc.cmd, err, tc.want)
		}
	}
}

// TestChangeStreamRefused: a standalone answers 40573 as mongod; a
// replica-set member opens the stream (a cursor with a
// postBatchResumeToken).
func TestChangeStreamRefused(t *testing.T) {
	cs := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$changeStream", Value: bson.D{}}}}},
		{Key: "cursor", Value: bson.D{}}}
	d, _, _ := newReadTestDispatcher(t, nil)
	if _, err := runRead(d, cs); !mongoerr.Is(err, mongoerr.ChangeStreamNeedsReplicaSet) {
		t.Errorf("standalone $changeStream: %v, want 40573", err)
	}
	d, _, _ = newReadTestDispatcher(t, &fakeRepl{primary: true})
	reply, err := runRead(d, cs)
	if err != nil {
		t.Fatalf("replica-set $changeStream: %v", err)
	}
	if cur, _ := lookupD(reply, "cursor").(bson.D); lookupD(cur, "postBatchResumeToken") == nil {
		t.Errorf("replica-set $changeStream: %v, want a cursor with postBatchResumeToken", reply)
	}
}

// TestFailPointRequestIdentity: a handshake's appName counts before the
// connection stores it, and internal requests are exempt.
func TestFailPointRequestIdentity(t *testing.T) {
	conn := NewConn(1, "127.0.0.1:1", "127.0.0.1:2")
	hello := bson.D{{Key: "isMaster", Value: 1}, {Key: "client", Value: bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: "app1"}}}}}}
	if got := requestAppName(&Ctx{Conn: conn, Name: "isMaster", Cmd: hello}); got != "app1" {
		t.Errorf("first hello's appName = %q, want app1", got)
	}
	cases := []struct {
		db, name string
		internal bool
	}{
		{"local", "find", true}, {"local", "getMore", true}, {"admin", "replSetHeartbeat", true},
		{"admin", "replSetUpdatePosition", true}, {"admin", "_migrateClone", true},
		{"test", "find", false}, {"test", "insert", false}, {"admin", "hello", false},
	}
	for _, tc := range cases {
		ctx := &Ctx{Conn: conn, DB: tc.db, Name: tc.name, Cmd: bson.D{{Key: tc.name, Value: 1}}}
		if got := internalRequest(ctx); got != tc.internal {
			t.Errorf("%s on %s: internal = %v, want %v", tc.name, tc.db, got, tc.internal)
		}
	}
	conn.addUser(authUser{user: "__system", db: "local"})
	if !internalRequest(&Ctx{Conn: conn, DB: "test", Name: "find"}) {
		t.Error("a __system connection's find is not internal")
	}
}

func lookupD(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}
