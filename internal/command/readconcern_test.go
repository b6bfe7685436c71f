package command

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/storage"
)

func TestParseReadConcern(t *testing.T) {
	ts := bson.Timestamp{T: 10, I: 1}
	tests := []struct {
		name  string
		rc    any
		code  mongoerr.Code // 0: valid
		level string
		after bson.Timestamp
	}{
		{"empty", bson.D{}, 0, levelLocal, bson.Timestamp{}},
		{"majority", bson.D{{Key: "level", Value: "majority"}}, 0, levelMajority, bson.Timestamp{}},
		{"available", bson.D{{Key: "level", Value: "available"}}, 0, levelAvailable, bson.Timestamp{}},
		{"causal", bson.D{{Key: "level", Value: "majority"}, {Key: "afterClusterTime", Value: ts}}, 0, levelMajority, ts},
		{"causal local default", bson.D{{Key: "afterClusterTime", Value: ts}}, 0, levelLocal, ts},
		{"afterOpTime", bson.D{{Key: "afterOpTime", Value: bson.D{{Key: "ts", Value: ts}, {Key: "t", Value: int64(1)}}}}, 0, levelLocal, ts},
		{"provenance", bson.D{{Key: "level", Value: "local"}, {Key: "provenance", Value: "clientSupplied"}}, 0, levelLocal, bson.Timestamp{}},
		{"not a document", "majority", mongoerr.FailedToParse, "", bson.Timestamp{}},
		{"bad level", bson.D{{Key: "level", Value: "strong"}}, mongoerr.FailedToParse, "", bson.Timestamp{}},
		{"level type", bson.D{{Key: "level", Value: int32(1)}}, mongoerr.TypeMismatch, "", bson.Timestamp{}},
		{"unknown field", bson.D{{Key: "wtimeout", Value: int32(1)}}, mongoerr.InvalidOptions, "", bson.Timestamp{}},
		{"afterClusterTime type", bson.D{{Key: "afterClusterTime", Value: int64(5)}}, mongoerr.TypeMismatch, "", bson.Timestamp{}},
		{"null afterClusterTime", bson.D{{Key: "afterClusterTime", Value: bson.Timestamp{}}}, mongoerr.InvalidOptions, "", bson.Timestamp{}},
		{"both afters", bson.D{{Key: "afterClusterTime", Value: ts},
			{Key: "afterOpTime", Value: bson.D{{Key: "ts", Value: ts}, {Key: "t", Value: int64(1)}}}}, mongoerr.InvalidOptions, "", bson.Timestamp{}},
		{"available causal", bson.D{{Key: "level", Value: "available"}, {Key: "afterClusterTime", Value: ts}}, mongoerr.InvalidOptions, "", bson.Timestamp{}},
		{"linearizable causal", bson.D{{Key: "level", Value: "linearizable"}, {Key: "afterClusterTime", Value: ts}}, mongoerr.InvalidOptions, "", bson.Timestamp{}},
		{"atClusterTime not snapshot", bson.D{{Key: "atClusterTime", Value: ts}}, mongoerr.InvalidOptions, "", bson.Timestamp{}},
		{"afterOpTime missing t", bson.D{{Key: "afterOpTime", Value: bson.D{{Key: "ts", Value: ts}}}}, mongoerr.NoSuchKey, "", bson.Timestamp{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rc, err := parseReadConcern(tc.rc)
			if tc.code != 0 {
				if me := mongoerr.From(err); err == nil || me.Code != tc.code {
					t.Fatalf("got %v, want code %d", err, tc.code)
				}
				return
			}
			if err != nil || rc.level != tc.level || rc.after != tc.after {
				t.Fatalf("got %+v, %v", rc, err)
			}
		})
	}
}

// fakeRepl is a replica-set member as far as reads care.
type fakeRepl struct {
	Replication
	primary bool
	waited  []any // w values WaitWriteConcern was called with
}

func (f *fakeRepl) CheckWrite(string) error {
	if f.primary {
		return nil
	}
	return mongoerr.New(mongoerr.NotWritablePrimary, "not primary")
}

func (f *fakeRepl) CheckRead(bool) error { return nil }

func (f *fakeRepl) WaitWriteConcern(_ context.Context, _ bson.Timestamp, w any, _ bool) error {
	f.waited = append(f.waited, w)
	return nil
}

func (f *fakeRepl) OpTimeFields() bson.D {
	return bson.D{{Key: "operationTime", Value: bson.Timestamp{T: 1 << 30}}}
}

func newReadTestDispatcher(t *testing.T, r Replication) (*Dispatcher, *catalog.Catalog, *catalog.Collection) {
	t.Helper()
	cat, err := catalog.Open(catalog.Options{Storage: storage.Options{InMemory: true}, TTLInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cat.Close() })
	coll, err := cat.CreateCollection("db", "c", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDispatcher(exec.New(cat, slog.Default()), Info{}, slog.Default())
	if r != nil {
		d.SetReplication(r)
	}
	return d, cat, coll
}

// runRead runs cmd through the dispatcher's invoke (with the reply fields
// it adds) and returns the reply or the error.
func runRead(d *Dispatcher, cmd bson.D) (bson.D, error) {
	ctx := &Ctx{D: d, DB: "db", Name: cmd[0].Key, Cmd: cmd, Req: &Request{}}
	return d.invoke(registry[cmd[0].Key], ctx)
}

func findWith(rc bson.D, extra ...bson.E) bson.D {
	cmd := bson.D{{Key: "find", Value: "c"}, {Key: "readConcern", Value: rc}}
	return append(cmd, extra...)
}

func batchLen(t *testing.T, reply bson.D) int {
	t.Helper()
	cur, _ := bsonx.Get(reply, "cursor")
	fb, _ := bsonx.Get(cur.(bson.D), "firstBatch")
	return len(fb.(bson.A))
}

func codeOf(err error) mongoerr.Code {
	if err == nil {
		return 0
	}
	return mongoerr.From(err).Code
}

func TestReadConcernStandalone(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, nil)
	if _, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	ts := bson.Timestamp{T: 1, I: 1}
	tests := []struct {
		rc   bson.D
		code mongoerr.Code
	}{
		{bson.D{{Key: "level", Value: "majority"}}, 0},
		{bson.D{{Key: "level", Value: "local"}}, 0},
		{bson.D{{Key: "level", Value: "linearizable"}}, codeNotAReplicaSet},
		{bson.D{{Key: "level", Value: "snapshot"}}, codeNotAReplicaSet},
		{bson.D{{Key: "afterClusterTime", Value: ts}}, mongoerr.IllegalOperation},
	}
	for _, tc := range tests {
		reply, err := runRead(d, findWith(tc.rc))
		if codeOf(err) != tc.code {
			t.Fatalf("%v: got %v, want code %d", tc.rc, err, tc.code)
		}
		if err == nil && batchLen(t, reply) != 1 {
			t.Fatalf("%v: %v", tc.rc, reply)
		}
	}
}

func TestReadConcernMajorityReplicaSet(t *testing.T) {
	r := &fakeRepl{primary: true}
	d, cat, coll := newReadTestDispatcher(t, r)
	w1, _ := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(1)}})
	cat.SetCommitPoint(w1.TS)
	if _, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(2)}}); err != nil {
		t.Fatal(err)
	}
	majority := bson.D{{Key: "level", Value: "majority"}}
	for _, cmd := range []bson.D{findWith(majority), findWith(bson.D{{Key: "level", Value: "local"}})} {
		reply, err := runRead(d, cmd)
		if err != nil {
			t.Fatal(err)
		}
		want := 2
		if bsonx.Equal(cmd[1].Value, majority) {
			want = 1
			if op, _ := bsonx.Get(reply, "operationTime"); op != w1.TS {
				t.Fatalf("majority read operationTime %v, want the snapshot's %v", op, w1.TS)
			}
		}
		if n := batchLen(t, reply); n != want {
			t.Fatalf("%v saw %d documents, want %d", cmd[1].Value, n, want)
		}
	}
	count := bson.D{{Key: "count", Value: "c"}, {Key: "readConcern", Value: majority}}
	if reply, err := runRead(d, count); err != nil || !bsonx.Equal(reply[0].Value, int32(1)) {
		t.Fatalf("majority count %v %v", reply, err)
	}
	distinct := bson.D{{Key: "distinct", Value: "c"}, {Key: "key", Value: "_id"}, {Key: "readConcern", Value: majority}}
	if reply, err := runRead(d, distinct); err != nil || len(reply[0].Value.(bson.A)) != 1 {
		t.Fatalf("majority distinct %v %v", reply, err)
	}
	agg := bson.D{{Key: "aggregate", Value: "c"}, {Key: "pipeline", Value: bson.A{}},
		{Key: "cursor", Value: bson.D{}}, {Key: "readConcern", Value: majority}}
	if reply, err := runRead(d, agg); err != nil || batchLen(t, reply) != 1 {
		t.Fatalf("majority aggregate %v %v", reply, err)
	}
}

func TestReadConcernLinearizable(t *testing.T) {
	lin := bson.D{{Key: "level", Value: "linearizable"}}
	r := &fakeRepl{primary: false}
	d, _, _ := newReadTestDispatcher(t, r)
	if _, err := runRead(d, findWith(lin)); codeOf(err) != mongoerr.NotWritablePrimary {
		t.Fatalf("linearizable on a secondary: %v", err)
	}
	r.primary = true
	if _, err := runRead(d, findWith(lin)); err != nil {
		t.Fatal(err)
	}
	if len(r.waited) != 1 || r.waited[0] != "majority" {
		t.Fatalf("linearizable read waited for %v, want one w:majority no-op", r.waited)
	}
	opt := bson.D{{Key: "level", Value: "linearizable"}, {Key: "afterOpTime",
		Value: bson.D{{Key: "ts", Value: bson.Timestamp{T: 1}}, {Key: "t", Value: int64(1)}}}}
	if _, err := runRead(d, findWith(opt)); codeOf(err) != mongoerr.FailedToParse {
		t.Fatalf("linearizable + afterOpTime: %v", err)
	}
}

func TestReadConcernAfterClusterTimeWaits(t *testing.T) {
	r := &fakeRepl{primary: false} // a secondary: no no-op write
	d, cat, coll := newReadTestDispatcher(t, r)
	top, _ := cat.Oplog().Top()
	after := bson.Timestamp{T: top.T + 1}
	gossip := bson.E{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: after}}}
	rc := bson.D{{Key: "afterClusterTime", Value: after}}
	if _, err := runRead(d, findWith(rc)); codeOf(err) != mongoerr.InvalidOptions {
		t.Fatalf("afterClusterTime beyond the known cluster time: %v", err)
	}
	if _, err := runRead(d, findWith(rc, gossip, bson.E{Key: "maxTimeMS", Value: int32(30)})); codeOf(err) != mongoerr.MaxTimeMSExpired {
		t.Fatalf("unreached afterClusterTime: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := runRead(d, findWith(rc, gossip))
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	for {
		w, err := cat.Insert(coll, bson.D{{Key: "_id", Value: bson.NewObjectID()}})
		if err != nil {
			t.Fatal(err)
		}
		if !w.TS.Before(after) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("read not woken once the time was applied")
	}
}

// staleRepl reports an operationTime older than the oplog top, as the
// coordinator does until it learns of its own newest write.
type staleRepl struct{ fakeRepl }

func (s *staleRepl) OpTimeFields() bson.D {
	return bson.D{{Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: bson.Timestamp{T: 1}}}},
		{Key: "operationTime", Value: bson.Timestamp{T: 1}}}
}

func TestOperationTimeCoversOplogTop(t *testing.T) {
	d, cat, coll := newReadTestDispatcher(t, &staleRepl{fakeRepl{primary: true}})
	w, err := cat.Insert(coll, bson.D{{Key: "_id", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := runRead(d, findWith(rcLocalDoc))
	if err != nil {
		t.Fatal(err)
	}
	if op, _ := bsonx.Get(reply, "operationTime"); op != w.TS {
		t.Fatalf("operationTime %v, want the oplog top %v", op, w.TS)
	}
	ct, _ := bsonx.Get(reply, "$clusterTime")
	if v, _ := bsonx.Get(ct.(bson.D), "clusterTime"); v != w.TS {
		t.Fatalf("$clusterTime %v, want %v", v, w.TS)
	}
}

var rcLocalDoc = bson.D{{Key: "level", Value: "local"}}
