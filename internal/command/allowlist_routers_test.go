package command

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/allowlist"
)

// routersSource is a shard's view of config.mongos in the test.
type routersSource struct {
	hosts []string
	err   error
	reads int
}

func (s *routersSource) CheckShardVersion(context.Context, string, bson.D) error { return nil }

func (s *routersSource) RouterHosts(_ context.Context, limit int) ([]string, error) {
	s.reads++
	return s.hosts[:min(len(s.hosts), limit)], s.err
}

// TestShardAllowsItsRouters: with alwaysAllowMembers, a shard lets in the
// routers config.mongos lists, read from the config servers at most once
// per memberResolveInterval, sooner again after a failed read.
func TestShardAllowsItsRouters(t *testing.T) {
	d, _, _ := newReadTestDispatcher(t, nil)
	d.info.ClusterRole = "shardsvr"
	src := &routersSource{err: errors.New("config servers unreachable")}
	d.shardVersioner = src
	configured := &allowlist.Policy{List: allowlist.MustParse("10.0.0.1"), AlwaysAllowMembers: true, Source: allowlist.SourceConfig}
	m := allowlist.NewMatcher(configured)
	d.StartAllowlist(m, configured)
	t.Cleanup(d.BeginShutdown)
	id := bson.D{{Key: "_id", Value: "shardIdentity"}, {Key: "configsvrConnectionString", Value: "cfg/127.0.0.8:1"}}
	if err := writeErr(d.eng.Insert("admin", "system.version", []bson.D{id}, true, nil)); err != nil {
		t.Fatal(err)
	}
	var next time.Time
	d.refreshShardRouters(d.allow, &next)
	if wait := time.Until(next); src.reads != 1 || wait > shardRoutersRetry || wait <= 0 {
		t.Fatalf("after a failed read: %d reads, next in %v", src.reads, wait)
	}
	src.hosts, src.err, next = []string{"127.0.0.9:2", "127.0.0.7:3"}, nil, time.Time{}
	d.refreshShardRouters(d.allow, &next)
	d.refreshAllowlist(d.allow)
	if got := fmt.Sprint(m.Policy().Members); got != "[127.0.0.7 127.0.0.8 127.0.0.9]" {
		t.Fatalf("members %s, want the config server and both routers", got)
	}
	d.refreshShardRouters(d.allow, &next)
	if src.reads != 2 || time.Until(next) < memberResolveInterval-time.Second {
		t.Fatalf("%d reads, next in %v: want no read before memberResolveInterval", src.reads, time.Until(next))
	}
}
