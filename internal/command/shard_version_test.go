package command

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// staleErr is an error with extra info, as shardsvr's.
type staleErr struct{ err *mongoerr.Error }

func (e staleErr) Error() string { return e.err.Error() }
func (e staleErr) Unwrap() error { return e.err }
func (e staleErr) ExtraInfo() bson.D {
	return bson.D{{Key: "ns", Value: "db.c"}, {Key: "shardId", Value: "sh0"}}
}

// fakeVersioner fails every request that carries shardVersion.
type fakeVersioner struct{ calls []string }

func (f *fakeVersioner) CheckShardVersion(_ context.Context, db string, cmd bson.D) error {
	f.calls = append(f.calls, cmd[0].Key)
	if _, ok := bsonx.Get(cmd, "shardVersion"); !ok {
		return nil
	}
	return staleErr{mongoerr.New(mongoerr.StaleConfig, "stale")}
}

func TestShardVersionHook(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	sv := bson.E{Key: "shardVersion", Value: bson.D{}}
	// No versioner: the field is ignored, as on any node that is not a shard.
	if _, err := runRead(d, bson.D{{Key: "find", Value: "c"}, sv}); err != nil {
		t.Fatalf("without a versioner: %v", err)
	}
	f := &fakeVersioner{}
	d.SetShardVersioner(f)
	_, err := runRead(d, bson.D{{Key: "find", Value: "c"}, sv})
	if codeOf(err) != mongoerr.StaleConfig {
		t.Fatalf("find: %v", err)
	}
	doc := ErrorDoc(err)
	want := bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: "stale"}, {Key: "code", Value: int32(13388)},
		{Key: "codeName", Value: "StaleConfig"}, {Key: "ns", Value: "db.c"}, {Key: "shardId", Value: "sh0"}}
	if !bsonEqual(doc, want) {
		t.Fatalf("error reply %v, want %v", doc, want)
	}
	// A write answers with write errors: statement 0 of an ordered batch,
	// every statement of an unordered one; nothing is inserted.
	ins := bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}}}
	reply, err := runRead(d, append(ins, sv))
	if err != nil {
		t.Fatal(err)
	}
	we, _ := bsonx.Get(reply, "writeErrors")
	n, _ := bsonx.Get(reply, "n")
	if arr, _ := we.(bson.A); len(arr) != 1 || n != int32(0) {
		t.Fatalf("ordered insert reply %v", reply)
	}
	first := we.(bson.A)[0].(bson.D)
	wantWE := bson.D{{Key: "index", Value: int32(0)}, {Key: "code", Value: int32(13388)}, {Key: "errmsg", Value: "stale"},
		{Key: "ns", Value: "db.c"}, {Key: "shardId", Value: "sh0"}}
	if !bsonEqual(first, wantWE) {
		t.Fatalf("write error %v, want %v", first, wantWE)
	}
	reply, _ = runRead(d, append(append(ins, bson.E{Key: "ordered", Value: false}), sv))
	if we, _ := bsonx.Get(reply, "writeErrors"); len(we.(bson.A)) != 2 {
		t.Fatalf("unordered insert reply %v", reply)
	}
	if reply, _ := runRead(d, bson.D{{Key: "count", Value: "c"}}); !bsonEqual(reply[:1], bson.D{{Key: "n", Value: int32(0)}}) {
		t.Fatalf("a stale insert wrote: %v", reply)
	}
	// getMore, ping, ... are not checked.
	f.calls = nil
	_, _ = runRead(d, bson.D{{Key: "ping", Value: 1}, sv})
	if len(f.calls) != 0 {
		t.Fatalf("ping was checked: %v", f.calls)
	}
}

func bsonEqual(a, b bson.D) bool {
	x, _ := bson.Marshal(a)
	y, _ := bson.Marshal(b)
	return string(x) == string(y)
}
