package experiment

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bench"
)

// fakeSet is a 3-member set whose m2 is one second behind on every other
// poll; with chaining on, m2 pulls from m1.
type fakeSet struct {
	g     Group
	mu    sync.Mutex
	polls int
	down  bool
}

func (f *fakeSet) URI() string { return "mongodb://fake:1/?replicaSet=rs0&mode=" + f.g.Mode }

func (f *fakeSet) ReplStatus(ctx context.Context) (ReplStatus, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.polls++
	src2 := "m0"
	if f.g.Mode == ModeOn {
		src2 = "m1"
	}
	st := set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"}, [3]string{"m2", "SECONDARY", src2})
	ts := bson.Timestamp{T: uint32(1000 + f.polls), I: 1}
	for i := range st.Members {
		st.Members[i].Optime = ts
	}
	if f.polls%2 == 0 {
		st.Members[2].Optime.T--
	}
	return st, nil
}

func (f *fakeSet) Down(ctx context.Context) error {
	f.mu.Lock()
	f.down = true
	f.mu.Unlock()
	return nil
}

// fakePhase answers loads with a throughput that depends on mode and w.
type fakePhase struct {
	mu    sync.Mutex
	calls []bench.PhaseConfig
}

func (p *fakePhase) run(ctx context.Context, cfg bench.PhaseConfig) (*bench.Result, error) {
	p.mu.Lock()
	p.calls = append(p.calls, cfg)
	p.mu.Unlock()
	time.Sleep(10 * time.Millisecond) // the 1 ms poller samples several times
	url := cfg.Props["mongodb.url"]
	ops := 1000.0
	if strings.Contains(url, "mode=auto") {
		ops = 1200
	}
	if strings.Contains(url, "w=majority") {
		ops /= 2
	}
	ops += float64(cfg.Seed) // run-to-run variation
	n := int64(100)
	return &bench.Result{Phase: cfg.Phase, Operations: n, Throughput: ops, RunTimeMs: 100,
		ServerCPUKnown: true, ServerCPUMicros: 50_000, ServerCPUPerOp: 500,
		Ops: []bench.OpSummary{{Name: bench.OpInsert, Operations: n, AvgMicros: 800, P99Micros: 2000,
			Returns: map[bench.Status]int64{bench.StatusOK: n}}}}, nil
}

func TestRunnerRunsEveryCell(t *testing.T) {
	var sets []*fakeSet
	var mu sync.Mutex
	start := func(ctx context.Context, g Group, dir string) (Set, error) {
		mu.Lock()
		defer mu.Unlock()
		s := &fakeSet{g: g}
		sets = append(sets, s)
		return s, nil
	}
	ph := &fakePhase{}
	var log bytes.Buffer
	cfg := Config{Nodes: []int{3}, Runs: 2, RecordCount: 100, Dir: t.TempDir(), PollInterval: time.Millisecond}
	r := &Runner{Config: cfg, Start: start, Phase: ph.run, Log: &log}
	cells, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 3 {
		t.Fatalf("%d clusters started, want one per mode (3)", len(sets))
	}
	for _, s := range sets {
		if !s.down {
			t.Errorf("cluster %v not stopped", s.g)
		}
	}
	if len(ph.calls) != 3*2*2 {
		t.Fatalf("%d loads, want 12", len(ph.calls))
	}
	for _, c := range ph.calls {
		p := c.Props
		if !c.Drop || c.Phase != bench.PhaseLoad || p["recordcount"] != "100" || p["threadcount"] != "8" {
			t.Errorf("load config %+v", c)
		}
	}
	if len(cells) != 6 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		if len(c.Runs) != 2 || c.Error != "" {
			t.Errorf("%v: %d runs, error %q", c.Key, len(c.Runs), c.Error)
		}
		if c.MaxLagSecs != 1 {
			t.Errorf("%v: max lag %v, want 1", c.Key, c.MaxLagSecs)
		}
		wantTree := "m0 <- m1; m0 <- m2"
		if c.Mode == ModeOn {
			wantTree = "m0 <- m1 <- m2"
		}
		if c.Tree != wantTree {
			t.Errorf("%v: tree %q, want %q", c.Key, c.Tree, wantTree)
		}
	}
	auto := cells[4] // 3 nodes, auto, majority
	if auto.Mode != ModeAuto || auto.W != WMajority || auto.Throughput != (Stat{601.5, 601, 602}) {
		t.Errorf("auto majority cell %v: %+v", auto.Key, auto.Throughput)
	}
	if auto.PrimaryCPU.Median != 50 {
		t.Errorf("primary CPU %v, want 50%%", auto.PrimaryCPU)
	}
	if !strings.Contains(log.String(), "[12/12]") {
		t.Errorf("log lacks progress:\n%s", log.String())
	}
}

func TestRunnerRecordsFailures(t *testing.T) {
	start := func(ctx context.Context, g Group, dir string) (Set, error) {
		if g.Mode == ModeAuto {
			return nil, errors.New("no such command: 'replSetInitiate'")
		}
		return &fakeSet{g: g}, nil
	}
	short := func(ctx context.Context, cfg bench.PhaseConfig) (*bench.Result, error) {
		res, _ := (&fakePhase{}).run(ctx, cfg)
		res.Operations = 40
		return res, nil
	}
	cfg := Config{Nodes: []int{3}, Runs: 1, RecordCount: 100, Dir: t.TempDir(), PollInterval: time.Millisecond}
	cells, err := (&Runner{Config: cfg, Start: start, Phase: short}).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "replSetInitiate") || !strings.Contains(err.Error(), "40 of 100") {
		t.Fatalf("error %v", err)
	}
	for _, c := range cells {
		switch {
		case c.Mode == ModeAuto && (len(c.Runs) != 0 || !strings.Contains(c.Error, "replSetInitiate")):
			t.Errorf("%v: %+v", c.Key, c)
		case c.Mode != ModeAuto && (len(c.Runs) != 1 || c.Runs[0].Error == ""):
			t.Errorf("%v: a short run must be kept and marked: %+v", c.Key, c.Runs)
		}
	}
}
