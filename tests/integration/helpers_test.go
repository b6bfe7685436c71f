package integration

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/relaydb/relaydb/tests/harness"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// opTimeout bounds a single driver operation in these tests.
const opTimeout = 10 * time.Second

// tctx returns a context that expires after d and is cancelled at cleanup.
func tctx(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// startServer starts one relaydb and returns it with a connected client.
func startServer(t testing.TB, opts ...harness.Option) (*harness.Server, *mongo.Client) {
	t.Helper()
	s := harness.Start(t, opts...)
	return s, s.Client(t)
}

// freshColl returns an empty collection named after the (sub)test.
func freshColl(t testing.TB, c *mongo.Client, db string) *mongo.Collection {
	t.Helper()
	coll := c.Database(db).Collection(sanitize(t.Name()))
	if err := coll.Drop(tctx(t, opTimeout)); err != nil {
		t.Fatalf("drop %s: %v", coll.Name(), err)
	}
	return coll
}

// sanitize turns a test name into a legal collection name.
func sanitize(name string) string {
	b := []byte(name)
	for i, ch := range b {
		ok := ch == '_' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

// errCode extracts the server error code from a driver error: a
// CommandError, or the first write error of a WriteException.
func errCode(err error) (int32, bool) {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code, true
	}
	var we mongo.WriteException
	if errors.As(err, &we) {
		if len(we.WriteErrors) > 0 {
			return int32(we.WriteErrors[0].Code), true
		}
		if we.WriteConcernError != nil {
			return int32(we.WriteConcernError.Code), true
		}
	}
	return 0, false
}

// wantCode fails t unless err carries the server error code want.
func wantCode(t testing.TB, err error, want int32, what string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: got no error, want code %d", what, want)
		return
	}
	got, ok := errCode(err)
	if !ok {
		t.Errorf("%s: got %T %v, want a server error with code %d", what, err, err, want)
		return
	}
	if got != want {
		t.Errorf("%s: got code %d (%v), want %d", what, got, err, want)
	}
}

// mustPing fails t if the server does not answer ping.
func mustPing(t testing.TB, c *mongo.Client) {
	t.Helper()
	err := c.Database("admin").RunCommand(tctx(t, opTimeout), bson.D{{Key: "ping", Value: 1}}).Err()
	if err != nil {
		t.Fatalf("server no longer answers ping: %v", err)
	}
}

// seed returns RELAYDB_IT_SEED or a time-based seed, logging it.
func seed(t testing.TB) uint64 {
	t.Helper()
	s := uint64(time.Now().UnixNano())
	if v := os.Getenv("RELAYDB_IT_SEED"); v != "" {
		p, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("RELAYDB_IT_SEED=%q: %v", v, err)
		}
		s = p
	}
	t.Logf("seed %d (replay with RELAYDB_IT_SEED=%d)", s, s)
	return s
}

func newRand(s uint64) *rand.Rand { return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)) }

// decodeAll reads a whole cursor into documents.
func decodeAll(t testing.TB, ctx context.Context, cur *mongo.Cursor) []bson.D {
	t.Helper()
	var out []bson.D
	if err := cur.All(ctx, &out); err != nil {
		t.Fatalf("cursor: %v", err)
	}
	return out
}

// asJSON renders v as relaxed extended JSON for comparisons and messages.
func asJSON(v any) string {
	if d, ok := v.(bson.D); ok && d == nil {
		return "{}"
	}
	b, err := bson.MarshalExtJSON(v, false, false)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
