package changestream

import (
	"bytes"
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// startSet starts a 3-member set and returns a client through its URI.
func startSet(t *testing.T, name string) (*cluster.Cluster, *mongo.Client) {
	t.Helper()
	set := harness.StartSets(t, []cluster.Spec{{Name: name, Data: 3}})[0]
	cl, err := mongo.Connect(options.Client().ApplyURI(set.URI()).SetTimeout(20 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return set, cl
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// next returns the stream's next event, failing t after 10 s.
func next(t *testing.T, cs *mongo.ChangeStream) bson.M {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !cs.Next(ctx) {
		t.Fatalf("no change event: %v", cs.Err())
	}
	return asM(t, cs.Current)
}

// asM decodes raw with nested documents as bson.M.
func asM(t *testing.T, raw bson.Raw) bson.M {
	t.Helper()
	dec := bson.NewDecoder(bson.NewDocumentReader(bytes.NewReader(raw)))
	dec.DefaultDocumentM()
	var ev bson.M
	if err := dec.Decode(&ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// expectOps reads len(want) events and checks their operationType.
func expectOps(t *testing.T, cs *mongo.ChangeStream, want ...string) []bson.M {
	t.Helper()
	var out []bson.M
	for i, w := range want {
		ev := next(t, cs)
		if ev["operationType"] != w {
			t.Fatalf("event %d: operationType %v, want %s (event %v)", i, ev["operationType"], w, ev)
		}
		out = append(out, ev)
	}
	return out
}

func watch(t *testing.T, coll *mongo.Collection, pipeline any, opts ...options.Lister[options.ChangeStreamOptions]) *mongo.ChangeStream {
	t.Helper()
	if pipeline == nil {
		pipeline = mongo.Pipeline{}
	}
	cs, err := coll.Watch(ctxT(t), pipeline, opts...)
	if err != nil {
		t.Fatalf("watch %s: %v", coll.Name(), err)
	}
	t.Cleanup(func() { _ = cs.Close(context.Background()) })
	return cs
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func codeOf(err error) int {
	var se mongo.ServerError
	if ce, ok := err.(mongo.CommandError); ok {
		return int(ce.Code)
	}
	if e, ok := err.(mongo.ServerError); ok {
		se = e
		for _, c := range []int{2, 14, 20, 43, 47, 72, 166, 238, 260, 280, 286, 40601, 40674} {
			if se.HasErrorCode(c) {
				return c
			}
		}
	}
	return -1
}
