package sharding

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/tests/harness"
)

// TestRouterUserCacheInvalidation: router B polls the config servers'
// user cache generation every second (--setParameter
// userCacheInvalidationIntervalSecs=1), so a role change made through
// router A reaches a connection already logged in on B within about a
// second: a privilege revoked from a user-defined role stops B's reads,
// granted back it lets them through again. The parameter is reported by
// getParameter and settable in its range only.
func TestRouterUserCacheInvalidation(t *testing.T) {
	sc := startSecuredCluster(t)
	rb := harness.StartRouter(t, "hcfg/"+sc.cfg, "--keyFile", sc.keyFile, "--setParameter", "userCacheInvalidationIntervalSecs=1")
	ctx := ctxT(t)
	app := sc.boss.Database("app")
	findU := bson.A{bson.D{{Key: "resource", Value: bson.D{{Key: "db", Value: "app"}, {Key: "collection", Value: "u"}}},
		{Key: "actions", Value: bson.A{"find"}}}}
	must(t, app.RunCommand(ctx, bson.D{{Key: "createRole", Value: "uReader"}, {Key: "privileges", Value: findU},
		{Key: "roles", Value: bson.A{}}}).Err(), "createRole")
	sc.createUser(t, "w", bson.A{"uReader"})
	wb := routerClient(t, rb, "w", "pw", "app").Database("app").Collection("u")
	if n, err := wb.CountDocuments(ctx, bson.D{}); err != nil || n != 10 {
		t.Fatalf("count through B = %d, %v", n, err)
	}

	// Revoked through A: B's logged-in connection loses it within the interval.
	must(t, app.RunCommand(ctx, bson.D{{Key: "revokePrivilegesFromRole", Value: "uReader"}, {Key: "privileges", Value: findU}}).Err(), "revoke")
	took := waitForCode(t, 5*time.Second, "B refuses the revoked read", func(ctx context.Context) error {
		_, err := wb.CountDocuments(ctx, bson.D{})
		return err
	}, 13)
	t.Logf("revocation reached router B after %v", took)
	must(t, app.RunCommand(ctx, bson.D{{Key: "grantPrivilegesToRole", Value: "uReader"}, {Key: "privileges", Value: findU}}).Err(), "grant")
	waitForCode(t, 5*time.Second, "B allows the granted read", func(ctx context.Context) error {
		_, err := wb.CountDocuments(ctx, bson.D{})
		return err
	}, 0)

	b := routerClient(t, rb, "boss", "boss-pw", "admin").Database("admin")
	var got struct {
		Secs int32 `bson:"userCacheInvalidationIntervalSecs"`
	}
	must(t, b.RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: "userCacheInvalidationIntervalSecs", Value: 1}}).Decode(&got), "getParameter")
	if got.Secs != 1 {
		t.Errorf("getParameter userCacheInvalidationIntervalSecs = %d, want 1", got.Secs)
	}
	for _, bad := range []any{int32(0), int32(86401), "x"} {
		err := b.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "userCacheInvalidationIntervalSecs", Value: bad}}).Err()
		if cmdCode(err) != 2 {
			t.Errorf("setParameter userCacheInvalidationIntervalSecs=%v: %v, want BadValue", bad, err)
		}
	}
	must(t, b.RunCommand(ctx, bson.D{{Key: "setParameter", Value: 1}, {Key: "userCacheInvalidationIntervalSecs", Value: int32(60)}}).Err(), "setParameter 60")
}

// waitForCode retries f until it answers code (0: success), failing
// after d; it returns how long that took.
func waitForCode(t *testing.T, d time.Duration, what string, f func(ctx context.Context) error, code int) time.Duration {
	t.Helper()
	start := time.Now()
	var err error
	for time.Since(start) < d {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = f(ctx)
		cancel()
		if (code == 0 && err == nil) || (code != 0 && cmdCode(err) == code) {
			return time.Since(start)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: still %v after %v", what, fmt.Sprint(err), d)
	return 0
}
