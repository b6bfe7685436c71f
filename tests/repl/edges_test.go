package repl

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestStateChangeErrorCarriesTopologyVersion (issue #14 item 5): a
// NotWritablePrimary or NotPrimaryNoSecondaryOk reply from a secondary
// carries the member's topologyVersion, equal to the one its hello reports,
// as mongod's does.
func TestStateChangeErrorCarriesTopologyVersion(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)[0]
	hello, err := rawCommand(sec.Host, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	want := hello.Lookup("topologyVersion")
	for _, cmd := range []bson.D{
		{{Key: "insert", Value: "tv"}, {Key: "documents", Value: bson.A{bson.D{}}}, {Key: "$db", Value: "repl_tv"}},
		{{Key: "find", Value: "tv"}, {Key: "$db", Value: "repl_tv"}},
	} {
		r, err := rawCommand(sec.Host, cmd)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.LookupErr("topologyVersion")
		if err != nil || !got.Equal(want) {
			t.Errorf("%s on a secondary: topologyVersion %v, want %v (hello's); reply %v", cmd[0].Key, got, want, r)
		}
	}
}

// TestNotPrimaryDoesNotStallTheDriver is the repro with the Go
// driver: connected straight to a secondary (streaming hello on), an insert
// fails with NotWritablePrimary; a ping right after, with a 2 s server
// selection timeout, must succeed at once. Without topologyVersion in the
// error the driver marks the member Unknown and waits for its next
// streaming hello (heartbeatFrequencyMS, 10 s).
func TestNotPrimaryDoesNotStallTheDriver(t *testing.T) {
	c := sharedSet(t)
	p := primary(t, c, 10*time.Second)
	sec := secondaries(c, p)[0]
	cl, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + sec.Host + "/?directConnection=true").
		SetServerSelectionTimeout(2 * time.Second).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Disconnect(t.Context())
	ctx, cancel := ctxT(5 * time.Second)
	defer cancel()
	if err := cl.Ping(ctx, nil); err != nil {
		t.Fatalf("first ping: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // let the monitor enter its streaming hello
	for i := range 3 {
		_, err := cl.Database("repl_tv").Collection("c").InsertOne(ctx, bson.D{{Key: "i", Value: i}})
		var se mongo.ServerError
		if !errors.As(err, &se) || !se.HasErrorCode(10107) {
			t.Fatalf("insert on a secondary: %v, want NotWritablePrimary", err)
		}
		start := time.Now()
		pctx, pcancel := ctxT(2 * time.Second)
		err = cl.Ping(pctx, nil)
		pcancel()
		if err != nil {
			t.Fatalf("ping %d after NotWritablePrimary: %v (after %v)", i, err, time.Since(start))
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("ping %d took %v, want well under 1 s", i, d)
		}
	}
}
