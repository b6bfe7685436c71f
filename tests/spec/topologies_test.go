package spec

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/tests/harness"
)

// The expected failures and floors of a topology: the standalone's files
// (expected_failures.json, floor.json) hold for every topology; a
// topology's own files (expected_failures.<topology>.json,
// floor.<topology>.json) add its entries and replace floors.

func floorFile(topology string) string {
	if p := "floor." + topology + ".json"; topology != "single" && exists(p) {
		return p
	}
	return "floor.json"
}

// loadXFails merges the standalone's list with the topology's own and,
// for a variant ("sharded-collections"), the variant's own.
func loadXFails(variant string) (*ExpectedFailures, error) {
	ef, err := LoadExpectedFailures("expected_failures.json")
	if err != nil || variant == "single" {
		return ef, err
	}
	names := []string{variant}
	if topology, _, isVariant := strings.Cut(variant, "-"); isVariant {
		names = []string{topology, variant}
	}
	for _, n := range names {
		own, err := LoadExpectedFailures("expected_failures." + n + ".json")
		if err != nil {
			return nil, err
		}
		ef.merge(own)
	}
	return ef, nil
}

func resultsPath(topology string) string {
	p := ResultsPath()
	if topology == "single" {
		return p
	}
	return strings.TrimSuffix(p, filepath.Ext(p)) + "-" + topology + filepath.Ext(p)
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// startReplicaSet starts a one-member replica set of the test binary and
// returns its connection string; it is stopped when t ends.
func startReplicaSet(t *testing.T) string {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := cluster.Up(ctx, cluster.Spec{Dir: t.TempDir(), Data: 1, Bin: bin, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Down(context.Background()) })
	return c.URI()
}

// startSharded starts a config server, two one-member shards and a router
// and returns the router's connection string; all stop when t ends.
func startSharded(t *testing.T) string {
	t.Helper()
	bin, err := harness.Binary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sc, err := cluster.UpSharded(ctx, cluster.ShardedSpec{Dir: t.TempDir(), Shards: 2, ShardMembers: 1,
		ConfigMembers: 1, Routers: 1, Bin: bin, DieWithParent: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sc.Down(context.Background()) })
	return sc.URI()
}

func connect(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}
