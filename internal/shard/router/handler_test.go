package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/command"
)

// newTestRouter is a router whose config servers do not exist: only what
// needs no metadata may be asked of it.
func newTestRouter(t *testing.T) *Router {
	t.Helper()
	r, err := New(Options{ConfigDB: "cfg/127.0.0.1:1", Version: "7.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func handle(t *testing.T, r *Router, db string, cmd bson.D) bson.D {
	t.Helper()
	body, err := bsonx.Encode(append(cmd, bson.E{Key: "$db", Value: db}))
	if err != nil {
		t.Fatal(err)
	}
	out, err := bsonx.Decode(r.Handle(command.NewConn(7, "c:1", "s:2"), &command.Request{Body: body}))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func code(reply bson.D) int64 {
	v, _ := bsonx.Get(reply, "code")
	n, _ := bsonx.AsInt64(v)
	return n
}

func TestHandleLocal(t *testing.T) {
	r := newTestRouter(t)
	h := handle(t, r, "admin", bson.D{{Key: "hello", Value: 1}, {Key: "helloOk", Value: true}, {Key: "compression", Value: bson.A{"zstd", "lz4"}}})
	if mustGet(h, "msg") != "isdbgrid" || mustGet(h, "isWritablePrimary") != true || mustGet(h, "helloOk") != true || mustGet(h, "ok") != 1.0 {
		t.Fatalf("hello = %v", h)
	}
	if _, ok := bsonx.Get(h, "setName"); ok {
		t.Fatalf("hello has setName: %v", h)
	}
	if comp, _ := mustGet(h, "compression").(bson.A); len(comp) != 1 || comp[0] != "zstd" {
		t.Fatalf("compression = %v", mustGet(h, "compression"))
	}
	tests := []struct {
		db   string
		cmd  bson.D
		code int64
	}{
		{"admin", bson.D{{Key: "ping", Value: 1}}, 0},
		{"test", bson.D{{Key: "buildInfo", Value: 1}}, 0},
		{"admin", bson.D{{Key: "getParameter", Value: "*"}}, 0},
		{"admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "nope", Value: 1}}, 72},
		{"admin", bson.D{{Key: "endSessions", Value: bson.A{}}}, 0},
		{"admin", bson.D{{Key: "getCmdLineOpts", Value: 1}}, 0},
		{"admin", bson.D{{Key: "getLog", Value: "startupWarnings"}}, 0},
		{"test", bson.D{{Key: "connectionStatus", Value: 1}}, 0},
		{"admin", bson.D{{Key: "hostInfo", Value: 1}}, 0},
		{"test", bson.D{{Key: "addShard", Value: "x/h:1"}}, 13},                                  // admin only
		{"test", bson.D{{Key: "getMore", Value: int64(5)}, {Key: "collection", Value: "c"}}, 43}, // unknown cursor
		{"admin", bson.D{{Key: "replSetGetStatus", Value: 1}}, 59},
		{"admin", bson.D{{Key: "abortTransaction", Value: 1}, {Key: "lsid", Value: bson.D{}}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}, 251},
		{"admin", bson.D{{Key: "commitTransaction", Value: 1}, {Key: "lsid", Value: bson.D{}}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}, 0},
		{"local", bson.D{{Key: "find", Value: "oplog.rs"}}, 20},
		{"admin", bson.D{{Key: "addShard", Value: ""}}, 2},
	}
	for _, tt := range tests {
		got := handle(t, r, tt.db, tt.cmd)
		if code(got) != tt.code || (tt.code == 0) != (mustGet(got, "ok") == 1.0) {
			t.Errorf("%s on %s = %v, want code %d", tt.cmd[0].Key, tt.db, got, tt.code)
		}
	}
	kc := handle(t, r, "test", bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{int64(9)}}})
	if nf, _ := mustGet(kc, "cursorsNotFound").(bson.A); len(nf) != 1 || mustGet(kc, "ok") != 1.0 {
		t.Fatalf("killCursors of an unknown cursor = %v", kc)
	}
}

func TestHandleLegacy(t *testing.T) {
	r := newTestRouter(t)
	conn := command.NewConn(1, "c:1", "s:2")
	q, _ := bsonx.Encode(bson.D{{Key: "isMaster", Value: 1}})
	out, _ := bsonx.Decode(r.HandleLegacy(conn, "admin.$cmd", q))
	if mustGet(out, "ismaster") != true || mustGet(out, "msg") != "isdbgrid" {
		t.Fatalf("legacy isMaster = %v", out)
	}
	q, _ = bsonx.Encode(bson.D{{Key: "find", Value: "c"}})
	out, _ = bsonx.Decode(r.HandleLegacy(conn, "test.$cmd", q))
	if code(out) != 352 {
		t.Fatalf("legacy find = %v, want UnsupportedOpQueryCommand", out)
	}
	out, _ = bsonx.Decode(r.Handle(conn, &command.Request{Body: mustEncode(bson.D{{Key: "ping", Value: 1}})}))
	if code(out) != 9 {
		t.Fatalf("a request without $db = %v, want FailedToParse", out)
	}
}

func mustEncode(d bson.D) []byte {
	b, _ := bsonx.Encode(d)
	return b
}
