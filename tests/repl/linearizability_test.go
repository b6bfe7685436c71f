package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/relaydb/relaydb/tests/harness"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Linearizability workload bounds.
const (
	linDuration = 20 * time.Second
	linClients  = 4
	linKeys     = 8
	linPause    = 3 * time.Millisecond // between a client's operations: keeps the history checkable
	linOpBound  = 5 * time.Second      // per operation, driver retries included
)

// Register operations of the workload.
const (
	opRead = iota
	opWrite
	opCAS
)

// regInput is one register operation on key.
type regInput struct {
	Op    int   `json:"op"` // opRead, opWrite, opCAS
	Key   int   `json:"key"`
	Value int64 `json:"value"` // written value (write, cas)
	Old   int64 `json:"old"`   // expected value (cas)
}

// regOutput is what the server answered. Unknown: the operation failed or
// timed out, so it may or may not have taken effect; it is recorded with
// an infinite return time (it may linearize at any point after its call).
type regOutput struct {
	Value   int64 `json:"value"` // value read
	OK      bool  `json:"ok"`    // cas succeeded
	Unknown bool  `json:"unknown"`
}

// OutcomeUnknown is harness.Outcome.
func (o regOutput) OutcomeUnknown() bool { return o.Unknown }

// registerModel is a single-value register per key with compare-and-set.
// Reads must be linearizable (the test asks for readConcern
// "linearizable"); writes and CAS that returned are linearizable by
// w:"majority" on a single primary per term.
var registerModel = porcupine.Model{
	Partition: harness.PartitionByKey(func(in any) int { return in.(regInput).Key }),
	Init:      func() any { return int64(0) },
	Step: func(state, input, output any) (bool, any) {
		st, in, out := state.(int64), input.(regInput), output.(regOutput)
		switch in.Op {
		case opRead:
			return out.Value == st, st
		case opWrite:
			return true, in.Value
		default: // opCAS
			if out.Unknown {
				if st == in.Old {
					return true, in.Value
				}
				return true, st
			}
			if out.OK {
				return st == in.Old, in.Value
			}
			return st != in.Old, st
		}
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(regInput), output.(regOutput)
		suffix := ""
		if out.Unknown {
			suffix = " (unknown)"
		}
		switch in.Op {
		case opRead:
			return fmt.Sprintf("read(k%d) -> %d%s", in.Key, out.Value, suffix)
		case opWrite:
			return fmt.Sprintf("write(k%d, %d)%s", in.Key, in.Value, suffix)
		}
		return fmt.Sprintf("cas(k%d, %d -> %d) -> %v%s", in.Key, in.Old, in.Value, out.OK, suffix)
	},
}

// regClient runs one client's random reads, writes and CASes.
type regClient struct {
	id   int
	coll *mongo.Collection
	h    *harness.History
	rng  *rand.Rand
	seq  int64
	last map[int]int64 // last value this client read per key (CAS guesses it)
}

func (c *regClient) run(ctx context.Context) {
	for ctx.Err() == nil {
		time.Sleep(linPause)
		key := c.rng.IntN(linKeys)
		switch r := c.rng.IntN(10); {
		case r < 4:
			c.read(ctx, key)
		case r < 7:
			c.write(ctx, key)
		default:
			c.cas(ctx, key)
		}
	}
}

// nextValue is unique across clients and operations.
func (c *regClient) nextValue() int64 { c.seq++; return int64(c.id+1)*1_000_000 + c.seq }

func (c *regClient) read(ctx context.Context, key int) {
	in := regInput{Op: opRead, Key: key}
	call := c.h.Now()
	octx, cancel := context.WithTimeout(ctx, linOpBound)
	defer cancel()
	var doc struct {
		V int64 `bson:"v"`
	}
	err := c.coll.FindOne(octx, bson.D{{Key: "_id", Value: key}}).Decode(&doc)
	if err != nil {
		c.h.Count("read error (dropped: a read has no effect)")
		return
	}
	c.last[key] = doc.V
	c.h.Add(c.id, in, regOutput{Value: doc.V}, call, "read ok")
}

func (c *regClient) write(ctx context.Context, key int) {
	in := regInput{Op: opWrite, Key: key, Value: c.nextValue()}
	call := c.h.Now()
	octx, cancel := context.WithTimeout(ctx, linOpBound)
	defer cancel()
	res, err := c.coll.UpdateOne(octx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: in.Value}}}})
	if err == nil && res.MatchedCount != 1 {
		err = fmt.Errorf("matched %d documents, want 1", res.MatchedCount)
	}
	c.h.Add(c.id, in, regOutput{Unknown: err != nil}, call, outcome("write", err))
}

func (c *regClient) cas(ctx context.Context, key int) {
	in := regInput{Op: opCAS, Key: key, Old: c.last[key], Value: c.nextValue()}
	call := c.h.Now()
	octx, cancel := context.WithTimeout(ctx, linOpBound)
	defer cancel()
	err := c.coll.FindOneAndUpdate(octx, bson.D{{Key: "_id", Value: key}, {Key: "v", Value: in.Old}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: in.Value}}}}).Err()
	switch {
	case err == nil:
		c.h.Add(c.id, in, regOutput{OK: true}, call, "cas ok")
	case errors.Is(err, mongo.ErrNoDocuments):
		c.h.Add(c.id, in, regOutput{OK: false}, call, "cas mismatch")
	default:
		c.h.Add(c.id, in, regOutput{Unknown: true}, call, outcome("cas", err))
	}
}

func outcome(op string, err error) string {
	if err == nil {
		return op + " ok"
	}
	return op + " unknown (error/timeout)"
}

// TestLinearizableRegister runs linClients clients doing reads
// (readConcern "linearizable"), w:"majority" writes and compare-and-set
// on linKeys register documents while a fault goroutine kills -9 and
// restarts members (the primary and secondaries), then checks the history
// with porcupine. The final reads after the faults stop are part of the
// history, so an acknowledged write lost in a failover is a violation.
func TestLinearizableRegister(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 20 s workload under kill -9; skipped under -short")
	}
	c := upSet(t, cluster.Spec{Data: 3})
	cl := connectSet(t, c, options.Client().SetRetryWrites(true).SetRetryReads(true))
	coll := cl.Database("repl_lin").Collection("reg", options.Collection().
		SetWriteConcern(writeconcern.Majority()).SetReadConcern(readconcern.Linearizable()).
		SetReadPreference(readpref.Primary()))
	seedRegisters(t, coll)

	h := harness.NewHistory()
	ctx, cancel := context.WithTimeout(context.Background(), linDuration)
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < linClients; i++ {
		rc := &regClient{id: i, coll: coll, h: h, rng: rand.New(rand.NewPCG(uint64(i), 42)), last: map[int]int64{}}
		wg.Add(1)
		go func() { defer wg.Done(); rc.run(ctx) }()
	}
	faults := runFaults(ctx, c)
	wg.Wait()
	t.Logf("faults: %v", <-faults)
	healSet(t, c)
	finalReads(t, coll, h)
	checkHistory(t, h)
}

func seedRegisters(t *testing.T, coll *mongo.Collection) {
	t.Helper()
	ctx, cancel := ctxT(10 * time.Second)
	defer cancel()
	for k := 0; k < linKeys; k++ {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: k}, {Key: "v", Value: int64(0)}}); err != nil {
			t.Fatalf("seed key %d: %v", k, err)
		}
	}
}

// TODO(#4): add partitions (the netLab of partition_test.go) to the fault
// schedule; today only kill -9 and restart are injected.

// runFaults kills -9 a member every few seconds (the primary two times in
// three) and restarts it 1.5 s later, until ctx is done. It sends the
// list of faults it injected.
func runFaults(ctx context.Context, c *cluster.Cluster) <-chan []string {
	out := make(chan []string, 1)
	go func() {
		var done []string
		start := time.Now()
		for i := 0; ; i++ {
			if sleepOrDone(ctx, 3*time.Second) != nil {
				out <- done
				return
			}
			name := "primary"
			if i%3 == 2 {
				name = c.Members()[i%len(c.Members())].Name
			}
			m, err := c.Kill(context.Background(), name)
			if err != nil || m == nil {
				done = append(done, fmt.Sprintf("kill %s failed: %v", name, err))
				continue
			}
			done = append(done, fmt.Sprintf("+%v kill -9 %s (%s)", time.Since(start).Round(time.Millisecond), m.Name, name))
			_ = sleepOrDone(ctx, 1500*time.Millisecond)
			rctx, rcancel := ctxT(30 * time.Second)
			if _, err := c.Restart(rctx, m.Name); err != nil {
				done = append(done, fmt.Sprintf("restart %s failed: %v", m.Name, err))
			}
			rcancel()
		}
	}()
	return out
}

func sleepOrDone(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// healSet restarts any member that is down and waits for a primary.
func healSet(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	for _, m := range c.Members() {
		if !c.Alive(m) {
			ctx, cancel := ctxT(30 * time.Second)
			if _, err := c.Restart(ctx, m.Name); err != nil {
				t.Errorf("restart %s after the workload: %v", m.Name, err)
			}
			cancel()
		}
	}
	primary(t, c, 20*time.Second)
}

// finalReads reads every key (retrying until it answers) and adds the
// reads to the history.
func finalReads(t *testing.T, coll *mongo.Collection, h *harness.History) {
	t.Helper()
	for k := 0; k < linKeys; k++ {
		var got bool
		eventually(t, 20*time.Second, fmt.Sprintf("final read of key %d", k), func() error {
			call := h.Now()
			ctx, cancel := ctxT(5 * time.Second)
			defer cancel()
			var doc struct {
				V int64 `bson:"v"`
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: k}}).Decode(&doc); err != nil {
				return err
			}
			h.Add(99, regInput{Op: opRead, Key: k}, regOutput{Value: doc.V}, call, "final read")
			got = true
			return nil
		})
		if !got {
			return
		}
	}
}

// checkHistory checks h with porcupine and, on a violation, writes the
// failing key's history and porcupine's visualization next to the test
// temp dir and fails.
func checkHistory(t *testing.T, h *harness.History) {
	t.Helper()
	ops := h.Ops()
	t.Logf("history: %d operations; outcomes %v", len(ops), h.Stats())
	if h.Stats()["write ok"]+h.Stats()["cas ok"] == 0 || h.Stats()["read ok"] == 0 {
		t.Fatalf("no acknowledged writes or reads: the workload did not run (%v)", h.Stats())
	}
	res, info := porcupine.CheckOperationsVerbose(registerModel, ops, 120*time.Second)
	switch res {
	case porcupine.Ok:
		return
	case porcupine.Unknown:
		t.Fatalf("porcupine timed out checking %d operations", len(ops))
	}
	dir := os.Getenv("RELAYDB_LIN_OUT")
	if dir == "" {
		dir = os.TempDir()
	}
	base := filepath.Join(dir, fmt.Sprintf("relaydb-linearizability-%d", time.Now().Unix()))
	_ = porcupine.VisualizePath(registerModel, info, base+".html")
	bad := harness.FailingPartition(registerModel, ops)
	b, _ := json.MarshalIndent(bad, "", "  ")
	_ = os.WriteFile(base+".json", b, 0o644)
	t.Fatalf("linearizability violation: porcupine rejects the history (%d ops). The failing key's %d "+
		"operations are in %s.json (call/return in ns since start; return %d = unknown outcome), "+
		"the visualization in %s.html. Operations of that key:\n%s",
		len(ops), len(bad), base, int64(math.MaxInt64), base, harness.DescribeOps(registerModel, bad))
}

// TestRegisterModelRejects checks that the checker can fail: histories
// with a stale read, a lost acknowledged write or a CAS that succeeded on
// the wrong value are rejected; an unknown write may or may not apply.
func TestRegisterModelRejects(t *testing.T) {
	op := func(c int, in regInput, out regOutput, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: c, Input: in, Output: out, Call: call, Return: ret}
	}
	w := func(v int64) regInput { return regInput{Op: opWrite, Value: v} }
	r := regInput{Op: opRead}
	tests := []struct {
		name string
		h    []porcupine.Operation
		ok   bool
	}{
		{"read after acked write sees it", []porcupine.Operation{op(0, w(1), regOutput{}, 0, 10), op(1, r, regOutput{Value: 1}, 20, 30)}, true},
		{"stale read after acked write", []porcupine.Operation{op(0, w(1), regOutput{}, 0, 10), op(1, r, regOutput{Value: 0}, 20, 30)}, false},
		{"acked write lost at the end", []porcupine.Operation{op(0, w(1), regOutput{}, 0, 10), op(0, w(2), regOutput{}, 20, 30),
			op(1, r, regOutput{Value: 1}, 40, 50)}, false},
		{"unknown write applied", []porcupine.Operation{op(0, w(1), regOutput{Unknown: true}, 0, math.MaxInt64), op(1, r, regOutput{Value: 1}, 20, 30)}, true},
		{"unknown write not applied", []porcupine.Operation{op(0, w(1), regOutput{Unknown: true}, 0, math.MaxInt64), op(1, r, regOutput{Value: 0}, 20, 30)}, true},
		{"cas on the wrong value", []porcupine.Operation{op(0, w(1), regOutput{}, 0, 10),
			op(1, regInput{Op: opCAS, Old: 0, Value: 5}, regOutput{OK: true}, 20, 30)}, false},
		{"cas mismatch on the right value", []porcupine.Operation{op(1, regInput{Op: opCAS, Old: 0, Value: 5}, regOutput{OK: false}, 20, 30)}, false},
		{"cas then read", []porcupine.Operation{op(1, regInput{Op: opCAS, Old: 0, Value: 5}, regOutput{OK: true}, 0, 10),
			op(0, r, regOutput{Value: 5}, 20, 30)}, true},
	}
	for _, tt := range tests {
		if got := porcupine.CheckOperations(registerModel, tt.h); got != tt.ok {
			t.Errorf("%s: linearizable = %v, want %v", tt.name, got, tt.ok)
		}
	}
}
