package bench

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Phase names: YCSB's -load and -t.
const (
	PhaseLoad = "load"
	PhaseRun  = "run"
)

// Options control one phase.
type Options struct {
	Phase          string        // PhaseLoad or PhaseRun
	Threads        int           // client threads (threadcount), default 1
	Target         float64       // total ops/s to throttle to; 0 = as fast as possible
	MaxExecution   time.Duration // stop after this long (maxexecutiontime); 0 = no limit
	StatusInterval time.Duration // status line period; 0 = none
	Status         io.Writer     // where status lines go (stderr)
	Progress       io.Writer     // a terminal for the progress bar, or nil
	Seed           uint64        // 0 = a random seed
}

// CPUProbe reads the server's cumulative CPU time; *Mongo is one.
type CPUProbe interface {
	ServerCPUMicros(ctx context.Context) (us int64, ok bool, err error)
}

// Result is one phase's outcome.
type Result struct {
	Phase           string      `json:"phase"`
	Threads         int         `json:"threads"`
	RunTimeMs       int64       `json:"runTimeMs"`
	Operations      int64       `json:"operations"`
	Throughput      float64     `json:"throughputOpsPerSec"`
	Ops             []OpSummary `json:"ops"`
	ServerCPUKnown  bool        `json:"serverCpuKnown"`
	ServerCPUMicros int64       `json:"serverCpuUs"`
	ServerCPUPerOp  float64     `json:"serverCpuUsPerOp"`
	ClientCPUMicros int64       `json:"clientCpuUs"`
	ClientCPUPerOp  float64     `json:"clientCpuUsPerOp"`
}

// Op returns the summary of operation name, if it ran.
func (r *Result) Op(name string) (OpSummary, bool) {
	for _, o := range r.Ops {
		if o.Name == name {
			return o, true
		}
	}
	return OpSummary{}, false
}

// opCount is how many operations the phase issues: operationcount for a
// run; insertcount (default recordcount-insertstart) for a load.
func opCount(w *Workload, phase string) int64 {
	if phase == PhaseLoad {
		return w.InsertCount
	}
	return w.OperationCount
}

// Run executes one phase with opts.Threads workers, each with its own DB
// from newDB, and measures it. probe may be nil.
func Run(ctx context.Context, w *Workload, opts Options, newDB func() DB, probe CPUProbe) (*Result, error) {
	if opts.Phase != PhaseLoad && opts.Phase != PhaseRun {
		return nil, fmt.Errorf("unknown phase %q", opts.Phase)
	}
	threads := max(opts.Threads, 1)
	total := opCount(w, opts.Phase)
	m := NewMeasurements()
	seed := opts.Seed
	if seed == 0 {
		seed = rand.Uint64()
	}
	srvBefore, srvOK := serverCPU(ctx, probe)
	cliBefore := clientCPUMicros()
	var done atomic.Int64
	var stop atomic.Bool
	start := time.Now()
	st := startStatus(opts, m, &done, total, start)
	if opts.MaxExecution > 0 {
		t := time.AfterFunc(opts.MaxExecution, func() { stop.Store(true) })
		defer t.Stop()
	}
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		k := &worker{w: w, db: newDB(), r: rand.New(rand.NewPCG(seed, uint64(i))), m: m, ctx: ctx}
		n := total / int64(threads)
		if int64(i) < total%int64(threads) {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			k.loop(opts, threads, n, &done, &stop)
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	st.finish()
	res := &Result{Phase: opts.Phase, Threads: threads, RunTimeMs: elapsed.Milliseconds(),
		Operations: done.Load(), Ops: m.Summaries()}
	if res.RunTimeMs > 0 {
		res.Throughput = float64(res.Operations) * 1000 / float64(res.RunTimeMs)
	}
	res.ClientCPUMicros = clientCPUMicros() - cliBefore
	// TODO(#3): with w=0 the server may still be applying writes when this
	// serverStatus runs, so w:0 server CPU per op is a lower bound.
	if srvAfter, ok := serverCPU(ctx, probe); ok && srvOK {
		res.ServerCPUKnown, res.ServerCPUMicros = true, srvAfter-srvBefore
	}
	if res.Operations > 0 {
		res.ServerCPUPerOp = float64(res.ServerCPUMicros) / float64(res.Operations)
		res.ClientCPUPerOp = float64(res.ClientCPUMicros) / float64(res.Operations)
	}
	return res, ctx.Err()
}

// loop issues n operations, throttled to target/threads ops/s as YCSB's
// ClientThread does: operation i is not started before start + i*tick.
func (k *worker) loop(opts Options, threads int, n int64, done *atomic.Int64, stop *atomic.Bool) {
	var tick time.Duration
	if opts.Target > 0 {
		tick = time.Duration(float64(time.Second) * float64(threads) / opts.Target)
	}
	start := time.Now()
	for i := int64(0); i < n && !stop.Load() && k.ctx.Err() == nil; i++ {
		if opts.Phase == PhaseLoad {
			k.doInsert()
		} else {
			k.doTransaction()
		}
		done.Add(1)
		if tick > 0 {
			if d := time.Until(start.Add(time.Duration(i+1) * tick)); d > 0 {
				time.Sleep(d)
			}
		}
	}
	if st := k.db.Flush(k.ctx); !st.OK() {
		k.m.Report(OpInsert, st)
	}
}

func serverCPU(ctx context.Context, probe CPUProbe) (int64, bool) {
	if probe == nil {
		return 0, false
	}
	us, ok, err := probe.ServerCPUMicros(ctx)
	return us, ok && err == nil
}

// clientCPUMicros is this process's user+system CPU time (getrusage).
func clientCPUMicros() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Sec*1e6 + int64(ru.Utime.Usec) + ru.Stime.Sec*1e6 + int64(ru.Stime.Usec)
}
