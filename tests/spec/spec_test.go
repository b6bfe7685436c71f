package spec

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/relaydb/relaydb/tests/harness"
)

const (
	caseTimeout = 10 * time.Second
	suiteBudget = 7 * time.Minute // stays under go test's default 10m timeout
)

// TestSpec runs the four spec folders against one standalone relaydb
// server.
func TestSpec(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	srv := harness.Start(t)
	runSpec(t, "single", srv.URI(), srv.Client(t), nil)
}

// TestSpecReplicaSet runs them against a one-member replica set (the
// replicaset requirements become applicable).
func TestSpecReplicaSet(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a replica set")
	}
	uri := startReplicaSet(t)
	runSpec(t, "replicaset", uri, connect(t, uri), nil)
}

// TestSpecSharded runs them through a router of a sharded cluster (one
// config server, two one-member shards): the sharded requirements become
// applicable.
func TestSpecSharded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sharded cluster")
	}
	uri := startSharded(t)
	runSpec(t, "sharded", uri, connect(t, uri), nil)
}

// TestSpecOnShardedCollections runs them through a router with every
// collection of initialData sharded on {_id: "hashed"} before its
// documents are inserted: chunks on both shards, so the router's sharded
// paths (targeting, merging, writes without the shard key) answer the
// drivers' conformance tests. Its expected failures add to the sharded
// topology's (expected_failures.sharded-collections.json).
func TestSpecOnShardedCollections(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sharded cluster")
	}
	uri := startSharded(t)
	runSpec(t, "sharded-collections", uri, connect(t, uri), bson.D{{Key: "_id", Value: "hashed"}})
}

// runSpec runs every folder against uri, applies the variant's expected
// failures and floors (topologies_test.go) and writes the summary. A
// variant is a topology's name, or "<topology>-<how>" (sharded-collections);
// shardKey is Runner.ShardKey.
func runSpec(t *testing.T, variant, uri string, internal *mongo.Client, shardKey bson.D) {
	topology, _, _ := strings.Cut(variant, "-")
	specDir, err := SpecDir()
	if err != nil {
		t.Fatal(err)
	}
	floors, err := LoadFloors(floorFile(variant))
	if err != nil {
		t.Fatal(err)
	}
	xfails, err := loadXFails(variant)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env, err := DetectEnv(ctx, internal, os.Getenv("RELAYDB_SPEC_SERVER_VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	if env.Topology != topology {
		t.Fatalf("server reports topology %s, want %s", env.Topology, topology)
	}
	rn := &Runner{URI: uri, Env: env, Internal: internal, Timeout: caseTimeout,
		Deadline: time.Now().Add(suiteBudget), ShardKey: shardKey}
	sum := &Summary{ServerVersion: fmt.Sprintf("%d.%d.%d", env.Version[0], env.Version[1], env.Version[2])}
	t.Logf("server version %s, topology %s", sum.ServerVersion, env.Topology)
	for _, folder := range foldersFor(variant) { // ops_txn.go
		sum.Add(runFolder(t, ctx, rn, xfails, specDir, folder))
	}
	for _, f := range sum.Folders {
		t.Logf("TOTAL %-25s %s", f.Folder, Counts(f.Pass, f.Fail, f.XFail, f.XPass, f.Skip))
	}
	t.Logf("TOTAL %-25s %s", "all", Counts(sum.Pass, sum.Fail, sum.XFail, sum.XPass, sum.Skip))
	path := resultsPath(variant)
	if err := sum.Write(path); err != nil {
		t.Error(err)
	}
	t.Logf("results written to %s", path)
	for _, msg := range sum.BelowFloor(floors) {
		t.Errorf("below floor: %s", msg)
	}
	if sum.Fail > 0 {
		t.Errorf("%d tests failed that are not listed as expected failures (FAIL lines above): fix them or list them with a reason", sum.Fail)
	}
	if sum.XPass > 0 {
		t.Errorf("%d tests listed as expected failures passed (XPASS): remove them from the list", sum.XPass)
	}
	for _, k := range xfails.Unused() {
		t.Errorf("expected failures of %s: no such test %q (or it did not run on this topology)", variant, k)
	}
}

func runFolder(t *testing.T, ctx context.Context, rn *Runner, xfails *ExpectedFailures, specDir, folder string) FolderReport {
	fr := FolderReport{Folder: folder}
	files, err := FolderFiles(specDir, folder)
	if err != nil || len(files) == 0 {
		t.Errorf("folder %s: no files (%v)", folder, err)
		return fr
	}
	for _, path := range files {
		name := shortName(specDir, path)
		f, err := LoadFile(path)
		var cases []CaseResult
		if err != nil {
			cases = []CaseResult{{Test: "(load)", Status: Fail, Reason: err.Error()}}
		} else {
			cases = rn.RunFile(ctx, f)
		}
		cases = xfails.Apply(name, cases)
		rep := NewFileReport(name, cases)
		for _, l := range rep.Lines() {
			t.Log(l)
		}
		fr.Add(rep)
	}
	return fr
}

// TestSpecFiles parses every file without a server and reports operation
// names the runner does not implement.
func TestSpecFiles(t *testing.T) {
	specDir, err := SpecDir()
	if err != nil {
		t.Fatal(err)
	}
	unknown := map[string]int{}
	total := 0
	for _, folder := range Folders {
		files, err := FolderFiles(specDir, folder)
		if err != nil || len(files) == 0 {
			t.Fatalf("folder %s: no files (%v)", folder, err)
		}
		for _, path := range files {
			f, err := LoadFile(path)
			if err != nil {
				t.Errorf("%v", err)
				continue
			}
			for _, tc := range f.Tests {
				total++
				for _, d := range tc.Operations {
					op, err := ParseOperation(d)
					if err != nil {
						t.Errorf("%s %q: %v", shortName(specDir, path), tc.Description, err)
					}
					if !Supported(op.Name) {
						unknown[op.Name]++
					}
				}
			}
		}
	}
	names := make([]string, 0, len(unknown))
	for n := range unknown {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("runner: unsupported operation %s (%d uses)", n, unknown[n])
	}
	t.Logf("%d test cases parsed; %d operation names unsupported", total, len(names))
	if total == 0 {
		t.Fatal("no test cases found")
	}
}
