package bench

import (
	"bytes"
	"context"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// fakeDB is an in-memory table recording what each operation asked for.
type fakeDB struct {
	mu    *sync.Mutex
	rows  map[string]bson.D
	calls map[string]int
	scans []int
	delay time.Duration
}

func newFake() *fakeDB {
	return &fakeDB{mu: &sync.Mutex{}, rows: map[string]bson.D{}, calls: map[string]int{}}
}

func (f *fakeDB) note(op string) {
	f.calls[op]++
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
}

func (f *fakeDB) Read(_ context.Context, _, key string, fields []string) Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.note(OpRead)
	if _, ok := f.rows[key]; !ok {
		return StatusNotFound
	}
	return StatusOK
}

func (f *fakeDB) Scan(_ context.Context, _, key string, n int, _ []string) Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.note(OpScan)
	f.scans = append(f.scans, n)
	return StatusOK
}

func (f *fakeDB) Update(_ context.Context, _, key string, v bson.D) Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.note(OpUpdate)
	if _, ok := f.rows[key]; !ok {
		return StatusNotFound
	}
	return StatusOK
}

func (f *fakeDB) Insert(_ context.Context, _, key string, v bson.D) Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.note(OpInsert)
	if _, dup := f.rows[key]; dup {
		return StatusError
	}
	f.rows[key] = v
	return StatusOK
}

func (f *fakeDB) Flush(context.Context) Status { return StatusOK }

func mustWorkload(t *testing.T, p Properties) *Workload {
	t.Helper()
	w, err := NewWorkload(p)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func runFake(t *testing.T, db *fakeDB, p Properties, opts Options) *Result {
	t.Helper()
	res, err := Run(context.Background(), mustWorkload(t, p), opts, func() DB { return db }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestLoadThenRunWorkloads(t *testing.T) {
	for _, preset := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run(preset, func(t *testing.T) {
			db := newFake()
			p, _ := Preset(preset)
			p["recordcount"], p["operationcount"] = "500", "2000"
			load := runFake(t, db, p, Options{Phase: PhaseLoad, Threads: 3, Seed: 1})
			if len(db.rows) != 500 || load.Operations != 500 {
				t.Fatalf("loaded %d rows in %d ops", len(db.rows), load.Operations)
			}
			doc := db.rows[BuildKeyName(0, 1, false)]
			if len(doc) != 10 || doc[0].Key != "field0" || len(doc[0].Value.(bson.Binary).Data) != 100 {
				t.Fatalf("record shape: %d fields, first %v", len(doc), doc[0].Key)
			}
			res := runFake(t, db, p, Options{Phase: PhaseRun, Threads: 4, Seed: 2})
			if res.Operations != 2000 {
				t.Fatalf("ran %d ops", res.Operations)
			}
			for _, o := range res.Ops {
				if strings.HasSuffix(o.Name, "-FAILED") {
					t.Errorf("%s: %d failures (keys chosen beyond the loaded ones?)", o.Name, o.Operations)
				}
			}
			checkMix(t, preset, res)
		})
	}
}

// checkMix compares the measured operation mix with the preset's.
func checkMix(t *testing.T, preset string, res *Result) {
	p, _ := Preset(preset)
	for prop, op := range map[string]string{"readproportion": OpRead, "updateproportion": OpUpdate,
		"scanproportion": OpScan, "insertproportion": OpInsert, "readmodifywriteproportion": OpReadModifyWrite} {
		want, _ := p.Float(prop, 0)
		o, _ := res.Op(op)
		n := o.Operations
		if op == OpRead || op == OpUpdate { // read-modify-write also reads and updates
			rmw, _ := res.Op(OpReadModifyWrite)
			n -= rmw.Operations
		}
		if got := float64(n) / float64(res.Operations); got < want-0.04 || got > want+0.04 {
			t.Errorf("workload %s: %s share %.3f, want %.2f", preset, op, got, want)
		}
	}
}

func TestScanLengthsAndProjection(t *testing.T) {
	db := newFake()
	p, _ := Preset("e")
	p["recordcount"], p["operationcount"], p["readallfields"] = "100", "500", "false"
	runFake(t, db, p, Options{Phase: PhaseLoad, Seed: 1})
	runFake(t, db, p, Options{Phase: PhaseRun, Seed: 3})
	for _, n := range db.scans {
		if n < 1 || n > 100 {
			t.Fatalf("scan length %d outside [1,100]", n)
		}
	}
	w := mustWorkload(t, p)
	if f := w.readFields(newRand()); len(f) != 1 || !strings.HasPrefix(f[0], "field") {
		t.Fatalf("readallfields=false projection = %v", f)
	}
}

func TestTargetThrottles(t *testing.T) {
	db := newFake()
	p := Properties{"recordcount": "50"}
	start := time.Now()
	runFake(t, db, p, Options{Phase: PhaseLoad, Threads: 2, Target: 200, Seed: 1})
	// 50 ops at 200 ops/s take at least 0.25 s (minus one tick per thread).
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("50 ops at target 200/s took %s", d)
	}
}

func TestMaxExecutionTimeStops(t *testing.T) {
	db := newFake()
	db.delay = time.Millisecond
	p := Properties{"recordcount": "100000"}
	res := runFake(t, db, p, Options{Phase: PhaseLoad, Threads: 2, MaxExecution: 100 * time.Millisecond, Seed: 1})
	if res.Operations == 0 || res.Operations >= 100000 || res.RunTimeMs > 2000 {
		t.Fatalf("maxexecutiontime: %d ops in %d ms", res.Operations, res.RunTimeMs)
	}
}

func TestBadProperties(t *testing.T) {
	for _, p := range []Properties{
		{"requestdistribution": "pareto"},
		{"scanlengthdistribution": "latest"},
		{"recordcount": "ten"},
		{"readproportion": "0", "updateproportion": "0"},
		{"recordcount": "10", "insertstart": "5", "insertcount": "10"},
		{"fieldcount": "0"},
	} {
		if _, err := NewWorkload(p); err == nil {
			t.Errorf("NewWorkload(%v) accepted", p)
		}
	}
}

// TestWriteTextGolden pins YCSB's text format on a fixed result.
func TestWriteTextGolden(t *testing.T) {
	res := &Result{Phase: PhaseRun, Threads: 8, RunTimeMs: 2000, Operations: 10000, Throughput: 5000,
		ServerCPUKnown: true, ServerCPUMicros: 250000, ServerCPUPerOp: 25, ClientCPUMicros: 123456, ClientCPUPerOp: 12.3456,
		Ops: []OpSummary{
			{Name: OpRead, Operations: 4990, AvgMicros: 1234.5678, MinMicros: 80, MaxMicros: 25000, P95Micros: 2100, P99Micros: 4000,
				Returns: map[Status]int64{StatusOK: 4990, StatusNotFound: 10}},
			{Name: "READ-FAILED", Operations: 10, AvgMicros: 300, MinMicros: 200, MaxMicros: 400, P95Micros: 400, P99Micros: 400},
			{Name: OpUpdate, Operations: 5000, AvgMicros: 2000, MinMicros: 100, MaxMicros: 30000, P95Micros: 3000, P99Micros: 5000,
				Returns: map[Status]int64{StatusOK: 5000}},
		}}
	var b bytes.Buffer
	if err := WriteText(&b, res); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "result.txt")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if b.String() != string(want) {
		t.Errorf("text output differs from %s:\n%s", path, b.String())
	}
}

func TestFormatFloat(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{0, "0.0"}, {12, "12.0"}, {1234.5, "1234.5"}, {98.91196834817013, "98.91196834817013"}, {12345678, "1.2345678E7"}, {0.0001, "1.0E-4"}} {
		if got := formatFloat(c.in); got != c.want {
			t.Errorf("formatFloat(%v) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestStatusLine(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC)
	got := statusLine(now, 20*time.Second, 3000, 1000, 10*time.Second, 6000,
		[]OpSummary{{Name: OpRead, Operations: 2000, MaxMicros: 900, MinMicros: 50, AvgMicros: 120.5, P90Micros: 200, P99Micros: 500, P999Micros: 800, P9999Micros: 900}})
	want := "2026-01-02 03:04:05:006 20 sec: 3000 operations; 200 current ops/sec; est completion in 20 seconds " +
		"[READ: Count=2000, Max=900, Min=50, Avg=120.50, 90=200, 99=500, 99.9=800, 99.99=900]"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := twoDecimals(6265.093937598221); got != "6265.09" {
		t.Errorf("twoDecimals = %s", got)
	}
	if bar := progressBar(5, 10, 10); bar != "[#####-----]  50% 5/10" {
		t.Errorf("progress bar %q", bar)
	}
}

func newRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
