package repl

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/tests/harness"
)

// keyedMember is one `relaydb serve --replSet --keyFile` process.
type keyedMember struct {
	srv  *harness.Server
	host string
}

// startKeyed starts one member of set per key file (in parallel: each
// start waits for ping only, which needs no login).
func startKeyed(t *testing.T, set string, keyFiles ...string) []keyedMember {
	t.Helper()
	out := make([]keyedMember, len(keyFiles))
	for i, kf := range keyFiles {
		s := harness.Start(t, harness.WithArgs("--replSet", set, "--keyFile", kf))
		out[i] = keyedMember{srv: s, host: fmt.Sprintf("127.0.0.1:%d", s.Port())}
	}
	return out
}

// connect is a direct client to host: no login when user is "", else
// user@authSource (SCRAM, the driver's default negotiation).
func connect(t *testing.T, host, user, pass, authSource string) *mongo.Client {
	t.Helper()
	uri := fmt.Sprintf("mongodb://%s/?directConnection=true&serverSelectionTimeoutMS=3000", host)
	if user != "" {
		uri = fmt.Sprintf("mongodb://%s:%s@%s/?directConnection=true&serverSelectionTimeoutMS=3000&authSource=%s",
			url.QueryEscape(user), url.QueryEscape(pass), host, authSource)
	}
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return cl
}

// runAdmin runs cmd on admin through cl, bounded by 10 s.
func runAdmin(cl *mongo.Client, cmd bson.D) (bson.M, error) {
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	var out bson.M
	err := cl.Database("admin").RunCommand(ctx, cmd).Decode(&out)
	return out, err
}

// keyedPrimary waits until one of ms says it is the writable primary.
func keyedPrimary(t *testing.T, ms []keyedMember, d time.Duration) keyedMember {
	t.Helper()
	var p keyedMember
	eventually(t, d, "a primary", func() error {
		for _, m := range ms {
			cl := connect(t, m.host, "", "", "")
			h, err := runAdmin(cl, bson.D{{Key: "hello", Value: 1}})
			_ = cl.Disconnect(context.Background())
			if err == nil && h["isWritablePrimary"] == true {
				p = m
				return nil
			}
		}
		return errors.New("no member is writable primary")
	})
	return p
}

// codeOf is a command error's server code, or 0.
func codeOf(err error) int32 {
	var ce mongo.CommandError
	if errors.As(err, &ce) {
		return ce.Code
	}
	var we mongo.WriteException
	if errors.As(err, &we) && we.WriteConcernError != nil {
		return int32(we.WriteConcernError.Code)
	}
	return 0
}
