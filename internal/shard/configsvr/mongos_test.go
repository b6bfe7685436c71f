package configsvr

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// recorder answers every command with reply and keeps what it was sent.
type recorder struct {
	sent  []bson.D
	reply bson.D
}

func (r *recorder) Run(_ context.Context, _ string, cmd bson.D) (bson.D, error) {
	r.sent = append(r.sent, cmd)
	return r.reply, nil
}

func TestReportMongos(t *testing.T) {
	rec := &recorder{reply: bson.D{{Key: "n", Value: int32(1)}, {Key: "ok", Value: 1.0}}}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := Mongos{ID: "h:27017", Ping: now, Up: 42, MongoVersion: "7.0.0", FQDNs: []string{"h"}, Created: now.Add(-time.Minute)}
	if err := NewCatalog(rec).ReportMongos(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if len(rec.sent) != 1 {
		t.Fatalf("sent %v", rec.sent)
	}
	cmd := rec.sent[0]
	if cmd[0].Key != "update" || cmd[0].Value != MongosColl {
		t.Fatalf("command %v", cmd)
	}
	ups, _ := bsonx.Get(cmd, "updates")
	u := ups.(bson.A)[0].(bson.D)
	q, _ := bsonx.Get(u, "q")
	upsert, _ := bsonx.Get(u, "upsert")
	mod, _ := bsonx.Get(u, "u")
	set, _ := bsonx.Get(mod.(bson.D), "$set")
	onInsert, _ := bsonx.Get(mod.(bson.D), "$setOnInsert")
	if q.(bson.D)[0].Value != "h:27017" || upsert != true {
		t.Errorf("q %v upsert %v", q, upsert)
	}
	want := map[string]any{"ping": bson.NewDateTimeFromTime(now), "up": int64(42), "waiting": true, "mongoVersion": "7.0.0"}
	for k, v := range want {
		if got, _ := bsonx.Get(set.(bson.D), k); got != v {
			t.Errorf("$set.%s = %v, want %v", k, got, v)
		}
	}
	if got, _ := bsonx.Get(onInsert.(bson.D), "created"); got != bson.NewDateTimeFromTime(m.Created) {
		t.Errorf("$setOnInsert.created = %v", got)
	}
	wc, _ := bsonx.Get(cmd, "writeConcern")
	if w, _ := bsonx.Get(wc.(bson.D), "w"); w != "majority" {
		t.Errorf("writeConcern %v", wc)
	}

	rec.reply = bson.D{{Key: "n", Value: int32(0)}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: int32(64)}, {Key: "errmsg", Value: "timed out"}}}, {Key: "ok", Value: 1.0}}
	if err := NewCatalog(rec).ReportMongos(context.Background(), m); err == nil {
		t.Error("a write concern error was not reported")
	}
}

func TestShardedCollectionNames(t *testing.T) {
	rec := &recorder{reply: cursorReply("firstBatch", []bson.D{{{Key: "_id", Value: "a.b"}}, {{Key: "_id", Value: "a.c"}}}, false)}
	names, err := NewCatalog(rec).ShardedCollectionNames(context.Background())
	if err != nil || len(names) != 2 || names[0] != "a.b" || names[1] != "a.c" {
		t.Fatalf("names %v, %v", names, err)
	}
	f, _ := bsonx.Get(rec.sent[0], "filter")
	if _, ok := bsonx.Get(f.(bson.D), "dropped"); !ok {
		t.Errorf("filter %v does not leave out dropped collections", f)
	}
	rec.reply = cursorReply("firstBatch", []bson.D{{{Key: "_id", Value: int32(1)}}}, false)
	if _, err := NewCatalog(rec).ShardedCollectionNames(context.Background()); err == nil {
		t.Error("a non-string _id was accepted")
	}
}
