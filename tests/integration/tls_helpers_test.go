package integration

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/tlsconf"
	"github.com/relaydb/relaydb/tests/harness"
)

// runServeExpectFailure runs `relaydb serve --inMemory args...` (bounded
// by 20 s), fails t unless it exits non-zero, and returns its output.
func runServeExpectFailure(t *testing.T, args ...string) string {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	full := append([]string{"serve", "--inMemory", "--port", "1", "--bind_ip", "127.0.0.1"}, args...)
	out, err := exec.CommandContext(ctx, bin, full...).CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("relaydb %v: want a startup failure, got %v\n%s", args, err, out)
	}
	return string(out)
}

// startTLSSet starts a 3-member replica set named set with requireTLS
// (and extra serve flags), initiated through the first member (over TLS
// with the client certificate; the localhost exception under auth).
func startTLSSet(t *testing.T, f tlsconf.Files, set string, extra ...string) ([]*harness.Server, []string) {
	t.Helper()
	tlsq := harness.TLSQuery(f, f.ClientFile)
	var members []*harness.Server
	var hosts []string
	for range 3 {
		s := harness.Start(t, harness.WithArgs(harness.TLSArgs(f, "requireTLS", append([]string{"--replSet", set}, extra...)...)...), harness.WithURIOptions(tlsq))
		members = append(members, s)
		hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", s.Port()))
	}
	first, err := tlsConnect(t, members[0], tlsq)
	if err != nil {
		t.Fatal(err)
	}
	cfgMembers := bson.A{}
	for i, h := range hosts {
		cfgMembers = append(cfgMembers, bson.D{{Key: "_id", Value: i}, {Key: "host", Value: h}})
	}
	if _, err := runCmd(t, first, "admin", bson.D{{Key: "replSetInitiate", Value: bson.D{{Key: "_id", Value: set}, {Key: "members", Value: cfgMembers}}}}); err != nil {
		t.Fatalf("replSetInitiate: %v", err)
	}
	return members, hosts
}
