// Package js tests server-side JavaScript ($where, $function,
// $accumulator) end to end: the real relaydb binary on loopback (a
// standalone, a --noscripting one, a sharded cluster), driven by the
// official Go driver.
package js

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

const opTimeout = 30 * time.Second

func tctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	t.Cleanup(cancel)
	return ctx
}

// seeded returns a fresh collection named after the test holding
// {_id: i, x: i} for i < n.
func seeded(t *testing.T, db *mongo.Database, n int) *mongo.Collection {
	t.Helper()
	coll := db.Collection(strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	if err := coll.Drop(tctx(t)); err != nil {
		t.Fatal(err)
	}
	insertX(t, coll, n)
	return coll
}

// insertX inserts {_id: i, x: i} for i < n.
func insertX(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "x", Value: int32(i)}}
	}
	if _, err := coll.InsertMany(tctx(t), docs); err != nil {
		t.Fatal(err)
	}
}

// ids runs a find and returns the _ids in order.
func ids(t *testing.T, coll *mongo.Collection, filter any) []int32 {
	t.Helper()
	cur, err := coll.Find(tctx(t), filter)
	if err != nil {
		t.Fatalf("find %v: %v", filter, err)
	}
	var docs []bson.D
	if err := cur.All(tctx(t), &docs); err != nil {
		t.Fatalf("find %v: %v", filter, err)
	}
	out := []int32{}
	for _, d := range docs {
		out = append(out, d[0].Value.(int32))
	}
	return out
}

// wantCode checks err is a server error with code (and, if msg is not
// empty, a message containing it).
func wantCode(t *testing.T, what string, err error, code int32, msg string) {
	t.Helper()
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(int(code)) {
		t.Errorf("%s: err = %v, want code %d", what, err, code)
		return
	}
	if msg != "" && !se.HasErrorMessage(msg) {
		t.Errorf("%s: err = %v, want a message containing %q", what, err, msg)
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// connect is a client of uri, disconnected by t.Cleanup.
func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	cl, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

// field is d's value of key, or nil.
func field(d bson.D, key string) any {
	for _, e := range d {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}
