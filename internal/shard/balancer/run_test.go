package balancer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// fakeCluster is an in-memory config server: settings, shards and
// routing tables; CommitSplit applies routing.ChunkManager.Split.
type fakeCluster struct {
	mu       sync.Mutex
	cfg      Config
	cfgErr   error
	shards   []Shard
	colls    map[string]*CollectionInfo
	splitLog []string
}

func (f *fakeCluster) Config(context.Context) (Config, error)  { return f.cfg, f.cfgErr }
func (f *fakeCluster) Shards(context.Context) ([]Shard, error) { return f.shards, nil }

func (f *fakeCluster) Collections(context.Context) ([]CollectionInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []CollectionInfo
	for _, c := range f.colls {
		out = append(out, *c)
	}
	return out, nil
}

func (f *fakeCluster) CommitSplit(_ context.Context, cm *routing.ChunkManager, ch routing.Chunk, at bson.D) (*routing.ChunkManager, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	next, err := cm.Split(ch.Min, []bson.D{at})
	if err != nil {
		return nil, err
	}
	f.colls[cm.Collection().NS].CM = next
	f.splitLog = append(f.splitLog, cm.Collection().NS+"@"+key.Format(at))
	return next, nil
}

// fakeShards answers from tables and records the moves, applying them to
// the fake cluster's routing tables (as a committed migration would).
type fakeShards struct {
	mu         sync.Mutex
	cluster    *fakeCluster
	stats      map[string]map[string]CollStats // shard -> ns -> stats
	points     map[string][]bson.D             // "ns [min, max)" -> autoSplitVector answer
	rangeBytes map[string]int64                // "ns [min, max)" -> its rangeDataSize when it has no split point
	moveErr    error
	moves      []string
}

func (f *fakeShards) Stats(_ context.Context, sh Shard, nss []string) (map[string]CollStats, error) {
	out := map[string]CollStats{}
	for _, ns := range nss {
		out[ns] = f.stats[sh.ID][ns]
	}
	return out, nil
}

func (f *fakeShards) SplitPoints(_ context.Context, _ Shard, cm *routing.ChunkManager, ch routing.Chunk, _ int64, limit int) ([]bson.D, int64, error) {
	pts := f.points[cm.Collection().NS+" "+ch.Range()]
	return pts[:min(limit, len(pts))], f.rangeBytes[cm.Collection().NS+" "+ch.Range()], nil
}

func (f *fakeShards) MoveRange(_ context.Context, donor Shard, req MoveRange) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.moveErr != nil {
		return f.moveErr
	}
	f.moves = append(f.moves, fmt.Sprintf("%s [%s, %s) %s->%s", req.NS, key.Format(req.Min), key.Format(req.Max), donor.ID, req.To))
	return nil
}

var testEpoch = bson.NewObjectID()

// testCM builds a collection sharded on {x: 1} with chunks split at the
// given points and owned in order by owners.
func testCM(t *testing.T, ns string, points []int64, owners ...string) *routing.ChunkManager {
	t.Helper()
	p, err := key.Parse(bson.D{{Key: "x", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	coll := routing.Collection{NS: ns, Key: p, Epoch: testEpoch, Timestamp: bson.Timestamp{T: 1, I: 1},
		UUID: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: make([]byte, 16)}}
	bounds := []bson.D{{{Key: "x", Value: bson.MinKey{}}}}
	for _, v := range points {
		bounds = append(bounds, bson.D{{Key: "x", Value: v}})
	}
	bounds = append(bounds, bson.D{{Key: "x", Value: bson.MaxKey{}}})
	var chunks []routing.Chunk
	for i := range owners {
		chunks = append(chunks, routing.Chunk{Min: bounds[i], Max: bounds[i+1], Shard: owners[i],
			Lastmod: routing.ChunkVersion{Epoch: testEpoch, Timestamp: coll.Timestamp, Major: 1, Minor: uint32(i)}})
	}
	cm, err := routing.New(coll, chunks)
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func xk(v int64) bson.D { return bson.D{{Key: "x", Value: v}} }

func TestRound(t *testing.T) {
	noon := time.Date(2026, 1, 1, 12, 0, 0, 0, time.Local)
	full := Config{Mode: "full", ChunkSize: 10 * mb, HotOpsPerSec: 100}
	two := []Shard{{ID: "sh0"}, {ID: "sh1"}}
	for _, tc := range []struct {
		name      string
		cfg       Config
		shards    []Shard
		noBalance bool
		collChunk int64 // the collection's maxChunkSizeBytes
		owners    []string
		stats     map[string]map[string]CollStats
		points    map[string][]bson.D
		skipped   string
		splits    string
		moves     string
	}{{
		name: "mode off: nothing", cfg: Config{Mode: "off", ChunkSize: 10 * mb},
		shards: two, owners: []string{"sh0", "sh0"},
		stats:   map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}},
		skipped: "the balancer is off",
	}, {
		name: "outside the window: nothing", cfg: Config{Mode: "full", ChunkSize: 10 * mb, Window: &Window{Start: 13 * 60, Stop: 14 * 60}},
		shards: two, owners: []string{"sh0", "sh0"},
		stats:   map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}},
		skipped: "outside the balancer's active window",
	}, {
		name: "inside a window spanning midnight: nothing to skip", cfg: Config{Mode: "full", ChunkSize: 10 * mb, Window: &Window{Start: 11 * 60, Stop: 1 * 60}},
		shards: two, owners: []string{"sh0", "sh0"},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}},
		moves: "db.c [{ x: MinKey }, { x: 0 }) sh0->sh1",
	}, {
		name: "noBalance: nothing", cfg: full, noBalance: true,
		shards: two, owners: []string{"sh0", "sh0"},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}},
	}, {
		name: "within the threshold: nothing", cfg: full,
		shards: two, owners: []string{"sh0", "sh1"},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 30 * mb}}, "sh1": {"db.c": {Size: 1 * mb}}},
	}, {
		name: "the collection's own chunk size (1 MB): 5 MB is past its threshold", cfg: full, collChunk: mb,
		shards: two, owners: []string{"sh0", "sh1"},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 5 * mb}}},
		moves: "db.c [{ x: MinKey }, { x: 0 }) sh0->sh1",
	}, {
		name: "draining shard: its chunk moves first", cfg: full,
		shards: []Shard{{ID: "sh0"}, {ID: "sh1", Draining: true}}, owners: []string{"sh0", "sh1"},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}, "sh1": {"db.c": {Size: 1 * mb}}},
		moves: "db.c [{ x: 0 }, { x: MaxKey }) sh1->sh0",
	}, {
		name: "jumbo chunk: split at the donor's first point, the lower piece moves", cfg: full,
		shards: two, owners: []string{"sh0"},
		stats:  map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}},
		points: map[string][]bson.D{"db.c [{ x: MinKey }, { x: MaxKey })": {xk(500), xk(900)}},
		splits: "db.c@{ x: 500 }",
		moves:  "db.c [{ x: MinKey }, { x: 500 }) sh0->sh1",
	}, {
		name: "hot range: split at the load key, the upper piece goes to the idle shard", cfg: full,
		shards: two, owners: []string{"sh0", "sh1"},
		stats: map[string]map[string]CollStats{
			"sh0": {"db.c": {Size: mb, OpsPerSec: 500, SplitKey: xk(-50)}},
			"sh1": {"db.c": {Size: mb, OpsPerSec: 10}},
		},
		splits: "db.c@{ x: -50 }",
		moves:  "db.c [{ x: -50 }, { x: 0 }) sh0->sh1",
	}, {
		name: "load below the threshold: nothing", cfg: full,
		shards: two, owners: []string{"sh0", "sh1"},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: mb, OpsPerSec: 99, SplitKey: xk(-50)}}},
	}, {
		name: "load on both shards alike: nothing", cfg: full,
		shards: two, owners: []string{"sh0", "sh1"},
		stats: map[string]map[string]CollStats{
			"sh0": {"db.c": {OpsPerSec: 500, SplitKey: xk(-50)}},
			"sh1": {"db.c": {OpsPerSec: 400, SplitKey: xk(50)}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cl := &fakeCluster{cfg: tc.cfg, shards: tc.shards, colls: map[string]*CollectionInfo{
				"db.c": {CM: testCM(t, "db.c", []int64{0}[:len(tc.owners)-1], tc.owners...), NoBalance: tc.noBalance, ChunkSize: tc.collChunk},
			}}
			sh := &fakeShards{cluster: cl, stats: tc.stats, points: tc.points}
			b := New(Options{Cluster: cl, Shards: sh, Now: func() time.Time { return noon }})
			r := b.RunRound(context.Background())
			if r.Err != nil {
				t.Fatalf("round: %v", r.Err)
			}
			if r.Skipped != tc.skipped {
				t.Errorf("skipped %q, want %q", r.Skipped, tc.skipped)
			}
			if got := strings.Join(cl.splitLog, "; "); got != tc.splits {
				t.Errorf("splits %q, want %q", got, tc.splits)
			}
			if got := strings.Join(sh.moves, "; "); got != tc.moves {
				t.Errorf("moves %q, want %q", got, tc.moves)
			}
			if st := b.Status(); st.Rounds != 1 || st.InRound || st.Mode != tc.cfg.Mode {
				t.Errorf("status %+v after one round", st)
			}
		})
	}
}

func TestRoundErrorsInStatus(t *testing.T) {
	cl := &fakeCluster{cfg: Config{Mode: "full", ChunkSize: mb}, shards: []Shard{{ID: "sh0"}, {ID: "sh1"}},
		colls: map[string]*CollectionInfo{"db.c": {CM: testCM(t, "db.c", nil, "sh0")}}}
	sh := &fakeShards{cluster: cl, moveErr: errors.New("ConflictingOperationInProgress"),
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 10 * mb}}}}
	b := New(Options{Cluster: cl, Shards: sh})
	if r := b.RunRound(context.Background()); r.Err == nil {
		t.Fatal("a failed move is not the round's error")
	}
	st := b.Status()
	if !strings.Contains(st.LastError, "ConflictingOperationInProgress") || len(st.LastMoves) != 0 {
		t.Fatalf("status %+v", st)
	}
	cl.cfgErr = errors.New("no config primary")
	b.RunRound(context.Background())
	if st := b.Status(); st.Rounds != 2 || !strings.Contains(st.LastError, "no config primary") {
		t.Fatalf("status %+v", st)
	}
}

// TestRunOnlyWhilePrimary runs the loop with a fast interval: rounds run
// while primary, none after a step-down.
func TestRunOnlyWhilePrimary(t *testing.T) {
	var mu sync.Mutex
	primary := true
	rounds := make(chan RoundResult, 100)
	cl := &fakeCluster{cfg: Config{Mode: "off"}}
	b := New(Options{Cluster: cl, Shards: &fakeShards{cluster: cl},
		Interval:  func() time.Duration { return time.Millisecond },
		IsPrimary: func() bool { mu.Lock(); defer mu.Unlock(); return primary },
		OnRound:   func(r RoundResult) { rounds <- r },
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	<-rounds
	mu.Lock()
	primary = false
	mu.Unlock()
	time.Sleep(20 * time.Millisecond) // a round in flight ends
	for len(rounds) > 0 {
		<-rounds
	}
	n := b.Status().Rounds
	time.Sleep(50 * time.Millisecond)
	if got := b.Status().Rounds; got != n {
		t.Fatalf("%d rounds ran after the step-down", got-n)
	}
	cancel()
	<-done
}

func TestWindowAndConfig(t *testing.T) {
	at := func(h, m int) time.Time { return time.Date(2026, 1, 1, h, m, 0, 0, time.Local) }
	for _, tc := range []struct {
		doc    bson.D
		t      time.Time
		mode   string
		inside bool
		err    bool
	}{
		{doc: nil, t: at(3, 0), mode: "full", inside: true},
		{doc: bson.D{{Key: "stopped", Value: true}}, t: at(3, 0), mode: "off", inside: true},
		{doc: bson.D{{Key: "mode", Value: "off"}}, t: at(3, 0), mode: "off", inside: true},
		{doc: bson.D{{Key: "mode", Value: "auto"}}, err: true},
		{doc: window("01:00", "05:00"), t: at(3, 0), mode: "full", inside: true},
		{doc: window("01:00", "05:00"), t: at(5, 0), mode: "full", inside: true}, // ends included
		{doc: window("01:00", "05:00"), t: at(5, 1), mode: "full", inside: false},
		{doc: window("23:00", "02:00"), t: at(0, 30), mode: "full", inside: true},
		{doc: window("23:00", "02:00"), t: at(12, 0), mode: "full", inside: false},
		{doc: window("24:00", "02:00"), err: true},
		{doc: window("01:00", "01:00"), err: true},
		{doc: bson.D{{Key: "activeWindow", Value: bson.D{{Key: "start", Value: "01:00"}}}}, err: true},
	} {
		cfg, err := ParseConfig(tc.doc, nil)
		if (err != nil) != tc.err {
			t.Errorf("%v: error %v, want error %v", tc.doc, err, tc.err)
			continue
		}
		if tc.err {
			continue
		}
		inside := cfg.Window == nil || cfg.Window.Contains(tc.t)
		if cfg.Mode != tc.mode || inside != tc.inside {
			t.Errorf("%v at %s: mode %s inside %v, want %s %v", tc.doc, tc.t.Format("15:04"), cfg.Mode, inside, tc.mode, tc.inside)
		}
	}
	cfg, _ := ParseConfig(nil, bson.D{{Key: "_id", Value: "chunksize"}, {Key: "value", Value: int32(1)}})
	if cfg.ChunkSize != mb || cfg.HotOpsPerSec != DefaultHotOpsPerSec {
		t.Errorf("chunksize 1 MB: %+v", cfg)
	}
}

func window(start, stop string) bson.D {
	return bson.D{{Key: "activeWindow", Value: bson.D{{Key: "start", Value: start}, {Key: "stop", Value: stop}}}}
}

// blockingShards is a ShardClient whose MoveRange waits for its context:
// a migration that a step-down must cut short.
type blockingShards struct {
	fakeShards
	started chan struct{}
}

func (b *blockingShards) MoveRange(ctx context.Context, _ Shard, _ MoveRange) error {
	close(b.started)
	<-ctx.Done()
	return ctx.Err()
}

// TestStepDownCancelsRound: a member that stops being primary during a
// round cancels the migrations it is waiting for.
func TestStepDownCancelsRound(t *testing.T) {
	cl := &fakeCluster{cfg: Config{Mode: "full", ChunkSize: mb}, shards: []Shard{{ID: "sh0"}, {ID: "sh1"}},
		colls: map[string]*CollectionInfo{"db.c": {CM: testCM(t, "db.c", nil, "sh0")}}}
	sh := &blockingShards{fakeShards: fakeShards{cluster: cl, stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 10 * mb}}}},
		started: make(chan struct{})}
	var mu sync.Mutex
	primary := true
	b := New(Options{Cluster: cl, Shards: sh, IsPrimary: func() bool { mu.Lock(); defer mu.Unlock(); return primary }})
	done := make(chan RoundResult)
	go func() { done <- b.RunRound(context.Background()) }()
	<-sh.started
	mu.Lock()
	primary = false
	mu.Unlock()
	select {
	case r := <-done:
		if !errors.Is(r.Err, context.Canceled) {
			t.Fatalf("round error %v, want the cancellation", r.Err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the round went on after the step-down")
	}
}

func TestCollectionStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []Shard
		sizes  map[string]map[string]CollStats
		ns     string
		want   string
	}{
		{name: "balanced", shards: []Shard{{ID: "sh0"}, {ID: "sh1"}}, ns: "db.c",
			sizes: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 2 * mb}}}, want: "{1 true }"},
		{name: "imbalanced", shards: []Shard{{ID: "sh0"}, {ID: "sh1"}}, ns: "db.c",
			sizes: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 9 * mb}}}, want: "{1 false chunksImbalance}"},
		{name: "draining", shards: []Shard{{ID: "sh0", Draining: true}, {ID: "sh1"}}, ns: "db.c", want: "{1 false draining}"},
		{name: "not sharded", shards: []Shard{{ID: "sh0"}}, ns: "db.other", want: "NamespaceNotSharded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := &fakeCluster{cfg: Config{Mode: "full", ChunkSize: mb}, shards: tc.shards,
				colls: map[string]*CollectionInfo{"db.c": {CM: testCM(t, "db.c", nil, "sh0")}}}
			b := New(Options{Cluster: cl, Shards: &fakeShards{cluster: cl, stats: tc.sizes}})
			st, err := b.CollectionStatus(context.Background(), tc.ns)
			got := fmt.Sprint(st)
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestJumboChunk: a chunk that has no split point but is larger than the
// chunk size (one key) is not moved by size; the next round moves the
// donor's next chunk instead. Draining moves it all the same.
func TestJumboChunk(t *testing.T) {
	cl := &fakeCluster{cfg: Config{Mode: "full", ChunkSize: mb}, shards: []Shard{{ID: "sh0"}, {ID: "sh1"}},
		colls: map[string]*CollectionInfo{"db.c": {CM: testCM(t, "db.c", []int64{0}, "sh0", "sh0")}}}
	jumbo := "db.c [{ x: MinKey }, { x: 0 })"
	sh := &fakeShards{cluster: cl, rangeBytes: map[string]int64{jumbo: 50 * mb},
		stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 100 * mb}}}}
	b := New(Options{Cluster: cl, Shards: sh})
	r := b.RunRound(context.Background())
	if r.Err != nil || len(r.Moves) != 1 || !r.Moves[0].Jumbo || len(sh.moves) != 0 {
		t.Fatalf("round 1: %+v, moves %v", r, sh.moves)
	}
	if r := b.RunRound(context.Background()); r.Err != nil || strings.Join(sh.moves, ";") != "db.c [{ x: 0 }, { x: MaxKey }) sh0->sh1" {
		t.Fatalf("round 2: %+v, moves %v", r, sh.moves)
	}
	sh.moves = nil
	cl.shards = []Shard{{ID: "sh0", Draining: true}, {ID: "sh1"}}
	if r := b.RunRound(context.Background()); r.Err != nil || strings.Join(sh.moves, ";") != "db.c [{ x: MinKey }, { x: 0 }) sh0->sh1" {
		t.Fatalf("draining: %+v, moves %v", r, sh.moves)
	}
}

// TestShortIntervalAfterMoves: with an hour's interval, a round that
// moved a range is followed by the next one a second later; one that
// moved nothing is not.
func TestShortIntervalAfterMoves(t *testing.T) {
	for _, tc := range []struct {
		mode       string
		wantRounds int
	}{{"full", 2}, {"off", 1}} {
		cl := &fakeCluster{cfg: Config{Mode: tc.mode, ChunkSize: mb}, shards: []Shard{{ID: "sh0"}, {ID: "sh1"}},
			colls: map[string]*CollectionInfo{"db.c": {CM: testCM(t, "db.c", nil, "sh0")}}}
		sh := &fakeShards{cluster: cl, stats: map[string]map[string]CollStats{"sh0": {"db.c": {Size: 10 * mb}}}}
		rounds := make(chan RoundResult, 10)
		var mu sync.Mutex
		first := true
		b := New(Options{Cluster: cl, Shards: sh,
			Interval: func() time.Duration {
				mu.Lock()
				defer mu.Unlock()
				if first {
					return time.Millisecond
				}
				return time.Hour
			},
			OnRound: func(r RoundResult) { mu.Lock(); first = false; mu.Unlock(); rounds <- r },
		})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); b.Run(ctx) }()
		time.Sleep(1600 * time.Millisecond)
		cancel()
		<-done
		if len(rounds) != tc.wantRounds {
			t.Errorf("mode %s: %d rounds in 1.6 s, want %d", tc.mode, len(rounds), tc.wantRounds)
		}
	}
}
