package shardexp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/bench/experiment"
	"github.com/relaydb/relaydb/internal/cluster"
)

// Runner runs the plan of Config on real clusters.
type Runner struct {
	Config Config
	Log    io.Writer // one line per cluster, load and cell; default io.Discard

	sec *cluster.Secrets // the running cluster's (--auth/--tls), nil if plain
}

// Run runs every cluster of Plan in turn. A failed cluster or cell is
// recorded (ClusterResult.Error, Cell.Error) and the plan goes on; the
// returned error joins the failures.
func (r *Runner) Run(ctx context.Context) ([]ClusterResult, []*Cell, error) {
	cfg := r.Config
	if r.Log == nil {
		r.Log = io.Discard
	}
	var clusters []ClusterResult
	var cells []*Cell
	var errs []error
	plan := Plan(cfg)
	fmt.Fprintf(r.Log, "%d clusters, about %v\n", len(plan), Estimate(cfg).Round(time.Minute))
	for i, t := range plan {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		fmt.Fprintf(r.Log, "cluster %d/%d: %v, %d records, %d threads, %d cells\n", i+1, len(plan), t, t.Records, t.Threads, len(t.Keys))
		cr, cs, err := r.runTopology(ctx, t)
		clusters, cells = append(clusters, cr), append(cells, cs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return clusters, cells, errors.Join(errs...)
}

// runTopology starts t's cluster, shards and loads usertable, runs t's
// cells and stops the cluster.
func (r *Runner) runTopology(ctx context.Context, t Topology) (ClusterResult, []*Cell, error) {
	cfg := r.Config
	cr := ClusterResult{Topology: t}
	cells := make([]*Cell, len(t.Keys))
	for i, k := range t.Keys {
		cells[i] = &Cell{Key: k, Records: t.Records, Threads: t.Threads}
	}
	fail := func(err error) (ClusterResult, []*Cell, error) {
		cr.Error = err.Error()
		for _, c := range cells {
			if c.Error == "" && len(c.Runs) == 0 {
				c.Error = "not run: " + err.Error()
			}
		}
		return cr, cells, fmt.Errorf("%v: %w", t, err)
	}
	dir := filepath.Join(cfg.Dir, fmt.Sprintf("s%d-rs%d", t.Shards, t.Members))
	if !cfg.Keep {
		defer os.RemoveAll(dir)
	}
	start := time.Now()
	sc, err := startCluster(ctx, cfg, t, dir, func(err error) {
		cr.StartRetried = err.Error()
		fmt.Fprintf(r.Log, "%v: %v; starting again\n", t, err)
	})
	if err != nil {
		return fail(err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := sc.Down(dctx); err != nil {
			fmt.Fprintf(r.Log, "stopping %v: %v\n", t, err)
		}
	}()
	cr.StartSecs = time.Since(start).Seconds()
	hosts := routerHosts(sc)
	r.sec = sc.Spec().Secrets
	if cr.Balancer, err = prepare(ctx, r.sec.URI("mongodb://"+hosts[0]+"/", true)); err != nil {
		return fail(err)
	}
	if err := r.load(ctx, &cr, hosts); err != nil {
		return fail(err)
	}
	if cr.DocsPerShard, err = docsPerShard(ctx, sc); err != nil {
		fmt.Fprintf(r.Log, "%v: %v\n", t, err)
	}
	fmt.Fprintf(r.Log, "%v: started in %.1fs, loaded %d at %.0f ops/s (%d failed), documents per shard %v\n",
		t, cr.StartSecs, cr.LoadOps, cr.LoadOpsSec, cr.LoadFailed, cr.DocsPerShard)
	if err := r.warmup(ctx, t, hosts); err != nil {
		cr.WarmupError = err.Error()
		fmt.Fprintf(r.Log, "%v: warm-up: %v\n", t, err)
	}
	var errs []error
	for run := 0; run < cfg.Runs; run++ {
		for _, c := range cells {
			if err := settle(ctx, sc); err != nil {
				cr.SettleFailed, cr.SettleError = cr.SettleFailed+1, err.Error()
				fmt.Fprintf(r.Log, "%v: %v\n", t, err)
			}
			m, err := r.cell(ctx, c, hosts, run)
			c.Runs = append(c.Runs, m)
			if err != nil {
				c.Error = joinMsg(c.Error, fmt.Sprintf("run %d: %v", run+1, err))
				errs = append(errs, fmt.Errorf("%v run %d: %w", c.Key, run+1, err))
			}
			fmt.Fprintf(r.Log, "%v run %d: %.0f ops/s, read %.0f µs, update %.0f µs, %d failed\n",
				c.Key, run+1, m.Throughput, m.ReadAvgUs, m.UpdateAvgUs, m.Failed)
		}
	}
	for _, c := range cells {
		c.Summarize()
	}
	return cr, cells, errors.Join(errs...)
}

// load inserts t.Records with w:1 j:true (w:"majority" on replicated
// shards, so no replication backlog outlives it), the key range split
// over one client per router.
func (r *Runner) load(ctx context.Context, cr *ClusterResult, hosts []string) error {
	lctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	var sample experiment.LineSample
	res, err := clients(lctx, bench.PhaseLoad, hosts, cr.Threads, func(i int) bench.Properties {
		p := baseProps("a", cr.Records)
		p["mongodb.url"] = r.sec.URI(uri(hosts[i], loadDurability(cr.Members)), true)
		from, n := split(cr.Records, len(hosts), i)
		p["insertstart"], p["insertcount"] = strconv.FormatInt(from, 10), strconv.FormatInt(n, 10)
		return p
	}, r.Config.Seed, &sample)
	cr.ErrorSample = sample.Lines()
	m := Aggregate(res)
	var secs float64
	for _, x := range res {
		if x != nil {
			secs = max(secs, float64(x.RunTimeMs)/1000)
		}
	}
	cr.LoadOps, cr.LoadFailed = m.Operations-m.Failed, m.Failed
	if secs > 0 {
		cr.LoadOpsSec = float64(m.Operations) / secs
	}
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return nil
}

// loadDurability is the load's write concern for shards of members.
func loadDurability(members int) string {
	if members > 1 {
		return DurMajority
	}
	return DurW1J1
}

// cell runs one run of c: the workload with c's durability, one client
// per router.
func (r *Runner) cell(ctx context.Context, c *Cell, hosts []string, run int) (Measure, error) {
	return r.runFor(ctx, c, hosts, run, r.Config.Operations, r.Config.Duration)
}

// warmup runs workload A with w:1 j:true on a fresh cluster for
// Config.Warmup, unmeasured: connection pools, caches and the routers'
// routing tables are warm before the first measured cell.
func (r *Runner) warmup(ctx context.Context, t Topology, hosts []string) error {
	if r.Config.Warmup <= 0 {
		return nil
	}
	c := &Cell{Key: Key{t.Shards, t.Members, "a", loadDurability(t.Members)}, Records: t.Records, Threads: t.Threads}
	m, err := r.runFor(ctx, c, hosts, -1, 0, r.Config.Warmup)
	if err == nil && m.Failed > 0 {
		err = fmt.Errorf("%d operations failed%s", m.Failed, sampleText(c.ErrorSample))
	}
	return err
}

// runFor runs c's workload for ops operations (0 = unbounded) or d.
func (r *Runner) runFor(ctx context.Context, c *Cell, hosts []string, run int, ops int64, d time.Duration) (Measure, error) {
	cfg := r.Config
	cctx, cancel := context.WithTimeout(ctx, d+5*time.Minute)
	defer cancel()
	var sample experiment.LineSample
	res, err := clients(cctx, bench.PhaseRun, hosts, c.Threads, func(i int) bench.Properties {
		p := baseProps(c.Workload, c.Records)
		p["mongodb.url"] = r.sec.URI(uri(hosts[i], c.Durability), true)
		n := int64(1) << 40
		if ops > 0 {
			_, n = split(ops, len(hosts), i)
		}
		p["operationcount"] = strconv.FormatInt(n, 10)
		if d > 0 {
			p["maxexecutiontime"] = strconv.FormatInt(int64(d/time.Second), 10)
		}
		return p
	}, cfg.Seed+uint64(run+1)*1000, &sample)
	for _, l := range sample.Lines() {
		if len(c.ErrorSample) < experiment.SampleLines {
			c.ErrorSample = append(c.ErrorSample, l)
		}
	}
	return Aggregate(res), err
}

// clients runs phase with one client per host at once, threads split
// evenly (the first ones take the remainder), client i seeded seed+i;
// the first failed operations' messages go to sample.
func clients(ctx context.Context, phase string, hosts []string, threads int,
	props func(i int) bench.Properties, seed uint64, sample *experiment.LineSample) ([]*bench.Result, error) {
	res := make([]*bench.Result, len(hosts))
	errs := make([]error, len(hosts))
	var wg sync.WaitGroup
	for i := range hosts {
		p := props(i)
		_, n := split(int64(threads), len(hosts), i)
		p["threadcount"] = strconv.FormatInt(max(n, 1), 10)
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = bench.RunPhase(ctx, bench.PhaseConfig{Phase: phase, Props: p, Seed: seed + uint64(i),
				Stderr: sample})
			if errs[i] != nil {
				errs[i] = fmt.Errorf("client %d (%s): %w", i, hosts[i], errs[i])
			}
		}()
	}
	wg.Wait()
	return res, errors.Join(errs...)
}

// baseProps are YCSB core workload w's properties with recordcount.
func baseProps(w string, records int64) bench.Properties {
	p, _ := bench.Preset(w) // w is validated
	p["recordcount"] = strconv.FormatInt(records, 10)
	p["status.interval"] = "0"
	return p
}

// uri is the connection string of one client: one router, durability d.
func uri(host, d string) string {
	return "mongodb://" + host + "/" + Database + "?" + URIOptions(d)
}

// split is part i of n: [from, from+count) of total, the first parts
// taking the remainder.
func split(total int64, n, i int) (from, count int64) {
	q, rem := total/int64(n), total%int64(n)
	from = int64(i)*q + min(int64(i), rem)
	count = q
	if int64(i) < rem {
		count++
	}
	return from, count
}

func joinMsg(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
