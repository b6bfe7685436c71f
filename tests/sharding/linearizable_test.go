package sharding

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/relaydb/relaydb/tests/harness"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
)

// Bounds of the sharded linearizability workload.
const (
	lzDuration = 15 * time.Second
	lzClients  = 4
	lzKeys     = 8                    // register documents _id 0..7, in four chunks of two
	lzPause    = 3 * time.Millisecond // between a client's operations: keeps the history checkable
	lzOpBound  = 5 * time.Second      // one operation, the driver's retries included
	lzCheckFor = 60 * time.Second     // porcupine's budget
)

// lzInput is one register operation: a read of Key, or a write of the
// unique Value to Key.
type lzInput struct {
	Write bool  `json:"write"`
	Key   int   `json:"key"`
	Value int64 `json:"value"`
}

// lzOutput is the answer: the value read, or Unknown for a write that
// failed or timed out (it may or may not have taken effect; porcupine
// gets it with an infinite return time).
type lzOutput struct {
	Value   int64 `json:"value"`
	Unknown bool  `json:"unknown"`
}

// OutcomeUnknown is harness.Outcome.
func (o lzOutput) OutcomeUnknown() bool { return o.Unknown }

// lzModel is one read/write register per key, starting at 0. (The
// replica-set test's model, tests/repl, adds compare-and-set; the sharded
// workload needs only reads and writes, so it has its own small model.)
var lzModel = porcupine.Model{
	Partition: harness.PartitionByKey(func(in any) int { return in.(lzInput).Key }),
	Init:      func() any { return int64(0) },
	Step: func(state, input, output any) (bool, any) {
		st, in := state.(int64), input.(lzInput)
		if in.Write {
			return true, in.Value
		}
		return output.(lzOutput).Value == st, st
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(lzInput), output.(lzOutput)
		if in.Write {
			if out.Unknown {
				return fmt.Sprintf("write(k%d, %d) (unknown)", in.Key, in.Value)
			}
			return fmt.Sprintf("write(k%d, %d)", in.Key, in.Value)
		}
		return fmt.Sprintf("read(k%d) -> %d", in.Key, out.Value)
	},
}

// lzClient runs one client's random reads and writes.
type lzClient struct {
	id   int
	coll *mongo.Collection
	h    *harness.History
	rng  *rand.Rand
	seq  int64
}

func (c *lzClient) run(ctx context.Context) {
	for i := 0; i < 1_000_000 && ctx.Err() == nil; i++ {
		time.Sleep(lzPause)
		key := c.rng.IntN(lzKeys)
		if c.rng.IntN(2) == 0 {
			c.read(ctx, key)
		} else {
			c.write(ctx, key)
		}
	}
}

func (c *lzClient) read(ctx context.Context, key int) {
	call := c.h.Now()
	octx, cancel := context.WithTimeout(ctx, lzOpBound)
	defer cancel()
	var doc struct {
		V int64 `bson:"v"`
	}
	if err := c.coll.FindOne(octx, bson.D{{Key: "_id", Value: key}}).Decode(&doc); err != nil {
		c.h.Count("read error (dropped: a read has no effect)")
		return
	}
	c.h.Add(c.id, lzInput{Key: key}, lzOutput{Value: doc.V}, call, "read ok")
}

func (c *lzClient) write(ctx context.Context, key int) {
	c.seq++
	in := lzInput{Write: true, Key: key, Value: int64(c.id+1)*1_000_000 + c.seq} // unique across clients
	call := c.h.Now()
	octx, cancel := context.WithTimeout(ctx, lzOpBound)
	defer cancel()
	res, err := c.coll.UpdateOne(octx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: in.Value}}}})
	if err == nil && res.MatchedCount != 1 {
		err = fmt.Errorf("matched %d documents, want 1", res.MatchedCount)
	}
	if err != nil {
		c.h.Add(c.id, in, lzOutput{Unknown: true}, call, "write unknown (error/timeout)")
		return
	}
	c.h.Add(c.id, in, lzOutput{}, call, "write ok")
}

// TestShardedLinearizable: lzClients clients read (readConcern
// "linearizable") and write (w:"majority", unique values) lzKeys register
// documents through a router while the four chunks holding them move
// back and forth between two three-member shards (a moveChunk loop) and
// the shards' primaries step down or are killed -9 in turn. The history,
// closed by a read of every key after the faults, must be linearizable
// (porcupine): a stale read on a donor after its commit, a read missing
// an acknowledged write, or a lost write fails the test.
//
// Reads are "linearizable", not "majority": a majority read on a primary
// elected a moment ago reads at that member's majority commit point,
// which can lag the writes the previous primary acknowledged (MongoDB
// promises "all majority-acknowledged writes completed before the read"
// only for "linearizable"). With "majority" this test sees such stale
// reads right after a kill -9 election (about one run in five), on chunks
// no migration touched.
func TestShardedLinearizable(t *testing.T) {
	lc := linzUp(t, 3, 1)
	coll := lc.cl.Database("lin").Collection("reg", options.Collection().
		SetWriteConcern(writeconcern.Majority()).SetReadConcern(readconcern.Linearizable()).SetReadPreference(readpref.Primary()))
	lc.setupRegisters(t, coll)

	h := harness.NewHistory()
	ctx, cancel := context.WithTimeout(context.Background(), lzDuration)
	defer cancel()
	var wg sync.WaitGroup
	for i := range lzClients {
		c := &lzClient{id: i, coll: coll, h: h, rng: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))}
		wg.Add(1)
		go func() { defer wg.Done(); c.run(ctx) }()
	}
	moves := lc.moveLoop(ctx, h)
	faults := lc.shardFaults(ctx)
	wg.Wait()
	m, f := <-moves, <-faults
	t.Logf("moves: %d committed, %d failed %q", m.ok, len(m.errs), m.errs)
	t.Logf("faults: %q", f)
	lc.heal(t)
	lzFinalReads(t, coll, h)
	if dir := lzCheck(t, h); dir != "" {
		lc.saveLogs(t, dir)
		t.Fatalf("linearizability violation (above); the moves were:\n%s\nthe members' logs are in %s", strings.Join(m.moves, "\n"), dir)
	}
	if m.ok < 2 {
		t.Fatalf("only %d chunk migrations committed during the workload: the test did not exercise migration", m.ok)
	}
}

// setupRegisters shards lin.reg on {_id: 1} in four chunks (split at 2,
// 4, 6) and inserts {_id: k, v: 0} for every key.
func (lc *linzCluster) setupRegisters(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	must(t, lc.admin.RunCommand(ctxT(t), bson.D{{Key: "shardCollection", Value: "lin.reg"}, {Key: "key", Value: bson.D{{Key: "_id", Value: 1}}}}).Err(), "shardCollection")
	for _, at := range []int{2, 4, 6} {
		must(t, lc.admin.RunCommand(ctxT(t), bson.D{{Key: "split", Value: "lin.reg"}, {Key: "middle", Value: bson.D{{Key: "_id", Value: at}}}}).Err(), "split at %d", at)
	}
	for k := range lzKeys {
		_, err := coll.InsertOne(ctxT(t), bson.D{{Key: "_id", Value: k}, {Key: "v", Value: int64(0)}})
		must(t, err, "insert key %d", k)
	}
}

// moveResult is what the moveChunk loop did.
type moveResult struct {
	ok    int
	errs  []string // the first few failures (a move during a failover may fail)
	moves []string // every move: [start, end] since the history's start, chunk, target, outcome
}

// moveLoop moves lin.reg's chunks until ctx ends: move j sends the chunk
// of key 2*(j%4) to sh0 or sh1 in turn (a move to the chunk's own shard
// is refused and changes nothing).
func (lc *linzCluster) moveLoop(ctx context.Context, h *harness.History) <-chan moveResult {
	out := make(chan moveResult, 1)
	go func() {
		var r moveResult
		for j := 0; j < 10_000 && ctx.Err() == nil; j++ {
			to := cluster.ShardName((j / 4) % 2)
			mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			began := time.Duration(h.Now())
			err := lc.admin.RunCommand(mctx, bson.D{{Key: "moveChunk", Value: "lin.reg"}, {Key: "find", Value: bson.D{{Key: "_id", Value: 2 * (j % 4)}}},
				{Key: "to", Value: to}}).Err()
			cancel()
			r.moves = append(r.moves, fmt.Sprintf("[%v, %v] chunk of k%d to %s: %v", began, time.Duration(h.Now()), 2*(j%4), to, err))
			switch {
			case err == nil:
				r.ok++
			case len(r.errs) < 5 && ctx.Err() == nil:
				r.errs = append(r.errs, err.Error())
			}
			_ = sleepCtx(ctx, 100*time.Millisecond)
		}
		out <- r
	}()
	return out
}

// shardFaults hits a shard's primary every 3 s until ctx ends, in turn:
// replSetStepDown on sh0, kill -9 on sh1, replSetStepDown on sh1, kill
// -9 on sh0; a killed member is restarted 1.5 s later.
func (lc *linzCluster) shardFaults(ctx context.Context) <-chan []string {
	out := make(chan []string, 1)
	go func() {
		var done []string
		start := time.Now()
		for i := 0; i < 100 && sleepCtx(ctx, 3*time.Second) == nil; i++ {
			sh := lc.sc.Shards[(i/2+i%2)%2]
			what := lc.fault(sh, i%2 == 1)
			done = append(done, fmt.Sprintf("+%v %s: %s", time.Since(start).Round(time.Millisecond), sh.Spec().Name, what))
		}
		out <- done
	}()
	return out
}

// fault steps sh's primary down, or kills it -9 and restarts it 1.5 s
// later; it describes what it did.
func (lc *linzCluster) fault(sh *cluster.Cluster, kill bool) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := sh.Primary(ctx)
	if err != nil {
		return fmt.Sprintf("no primary: %v", err)
	}
	if !kill {
		err := sh.RunAdmin(ctx, p, bson.D{{Key: "replSetStepDown", Value: 10}, {Key: "secondaryCatchUpPeriodSecs", Value: 5}}, nil)
		return fmt.Sprintf("replSetStepDown %s (%v)", p.Name, err)
	}
	if _, err := sh.Kill(ctx, p.Name); err != nil {
		return fmt.Sprintf("kill -9 %s failed: %v", p.Name, err)
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := sh.Restart(ctx, p.Name); err != nil {
		return fmt.Sprintf("kill -9 %s, restart failed: %v", p.Name, err)
	}
	return fmt.Sprintf("kill -9 %s, restarted", p.Name)
}

// heal restarts any shard member that is down and waits for each shard's
// primary.
func (lc *linzCluster) heal(t *testing.T) {
	t.Helper()
	for _, sh := range lc.sc.Shards {
		for _, m := range sh.Members() {
			if !sh.Alive(m) {
				restartMember(t, sh, m)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), linzBound)
		_, err := sh.WaitPrimary(ctx)
		cancel()
		must(t, err, "a primary of %s", sh.Spec().Name)
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// lzFinalReads reads every key once the faults are over (retrying,
// bounded) and adds the reads to the history: a lost acknowledged write
// is then a violation.
func lzFinalReads(t *testing.T, coll *mongo.Collection, h *harness.History) {
	t.Helper()
	for k := range lzKeys {
		linzEventually(t, "final read of key %d", func() error {
			call := h.Now()
			ctx, cancel := context.WithTimeout(context.Background(), lzOpBound)
			defer cancel()
			var doc struct {
				V int64 `bson:"v"`
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: k}}).Decode(&doc); err != nil {
				return err
			}
			h.Add(99, lzInput{Key: k}, lzOutput{Value: doc.V}, call, "final read")
			return nil
		}, k)
	}
}

// lzCheck checks h with porcupine; on a violation it writes the
// visualization and the failing key's operations to a directory that
// outlives the test ($RELAYDB_LIN_OUT, else a new one under the system
// temp dir: t.TempDir() would be removed with the test), marks t failed
// and returns the directory ("" when the history is linearizable).
func lzCheck(t *testing.T, h *harness.History) string {
	t.Helper()
	ops := h.Ops()
	t.Logf("history: %d operations; outcomes %v", len(ops), h.Stats())
	if h.Stats()["write ok"] == 0 || h.Stats()["read ok"] == 0 {
		t.Fatalf("no acknowledged writes or reads: the workload did not run (%v)", h.Stats())
	}
	res, info := porcupine.CheckOperationsVerbose(lzModel, ops, lzCheckFor)
	switch res {
	case porcupine.Ok:
		return ""
	case porcupine.Unknown:
		t.Fatalf("porcupine did not finish checking %d operations within %v", len(ops), lzCheckFor)
	}
	dir := os.Getenv("RELAYDB_LIN_OUT")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "relaydb-linz-"); err != nil {
			dir = t.TempDir()
		}
	}
	html, js := filepath.Join(dir, "sharded-linearizability.html"), filepath.Join(dir, "sharded-linearizability.json")
	_ = porcupine.VisualizePath(lzModel, info, html)
	bad := lzFailingKey(ops)
	b, _ := json.MarshalIndent(bad, "", "  ")
	_ = os.WriteFile(js, b, 0o644)
	t.Errorf("linearizability violation: porcupine rejects the history (%d operations); visualization %s, "+
		"the failing key's %d operations %s (return %d = unknown outcome):\n%s",
		len(ops), html, len(bad), js, int64(math.MaxInt64), lzDescribe(bad))
	return dir
}

// saveLogs copies every shard and config member's log into dir.
func (lc *linzCluster) saveLogs(t *testing.T, dir string) {
	t.Helper()
	for _, c := range append([]*cluster.Cluster{lc.sc.Config}, lc.sc.Shards...) {
		for _, m := range c.Members() {
			b, err := os.ReadFile(m.LogPath)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, c.Spec().Name+"-"+m.Name+".log"), b, 0o644)
			}
			if err != nil {
				t.Logf("saving %s/%s's log: %v", c.Spec().Name, m.Name, err)
			}
		}
	}
}

// lzFailingKey returns the operations of the first key whose history
// alone is not linearizable, by call time.
func lzFailingKey(ops []porcupine.Operation) []porcupine.Operation {
	for _, part := range lzModel.Partition(ops) {
		if !porcupine.CheckOperations(lzModel, part) {
			sort.Slice(part, func(i, j int) bool { return part[i].Call < part[j].Call })
			return part
		}
	}
	return nil
}

func lzDescribe(ops []porcupine.Operation) string {
	var s string
	for i, op := range ops {
		if i == 200 {
			return s + fmt.Sprintf("... %d more\n", len(ops)-i)
		}
		ret := "∞"
		if op.Return != math.MaxInt64 {
			ret = time.Duration(op.Return).String()
		}
		s += fmt.Sprintf("c%d [%v, %s] %s\n", op.ClientId, time.Duration(op.Call), ret, lzModel.DescribeOperation(op.Input, op.Output))
	}
	return s
}

// TestShardedLinearizableModel: the checker can fail. A stale read after
// an acknowledged write and a lost acknowledged write are rejected; a
// write of unknown outcome may or may not have applied.
func TestShardedLinearizableModel(t *testing.T) {
	op := func(c int, in lzInput, out lzOutput, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: c, Input: in, Output: out, Call: call, Return: ret}
	}
	w := func(v int64) lzInput { return lzInput{Write: true, Value: v} }
	r := lzInput{}
	tests := []struct {
		name string
		h    []porcupine.Operation
		ok   bool
	}{
		{"read after an acknowledged write sees it", []porcupine.Operation{op(0, w(1), lzOutput{}, 0, 10), op(1, r, lzOutput{Value: 1}, 20, 30)}, true},
		{"stale read after an acknowledged write", []porcupine.Operation{op(0, w(1), lzOutput{}, 0, 10), op(1, r, lzOutput{Value: 0}, 20, 30)}, false},
		{"acknowledged write lost", []porcupine.Operation{op(0, w(1), lzOutput{}, 0, 10), op(0, w(2), lzOutput{}, 20, 30),
			op(1, r, lzOutput{Value: 1}, 40, 50)}, false},
		{"concurrent read may see either", []porcupine.Operation{op(0, w(1), lzOutput{}, 0, 30), op(1, r, lzOutput{Value: 0}, 10, 20)}, true},
		{"unknown write applied", []porcupine.Operation{op(0, w(1), lzOutput{Unknown: true}, 0, math.MaxInt64), op(1, r, lzOutput{Value: 1}, 20, 30)}, true},
		{"unknown write not applied", []porcupine.Operation{op(0, w(1), lzOutput{Unknown: true}, 0, math.MaxInt64), op(1, r, lzOutput{Value: 0}, 20, 30)}, true},
		{"a read goes back in time", []porcupine.Operation{op(0, w(1), lzOutput{Unknown: true}, 0, math.MaxInt64),
			op(1, r, lzOutput{Value: 1}, 10, 20), op(1, r, lzOutput{Value: 0}, 30, 40)}, false},
	}
	for _, tt := range tests {
		if got := porcupine.CheckOperations(lzModel, tt.h); got != tt.ok {
			t.Errorf("%s: linearizable = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
