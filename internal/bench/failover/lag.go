package failover

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/relaydb/relaydb/internal/bench"
	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// lagPollInterval is how often the lag run polls every member.
const lagPollInterval = 50 * time.Millisecond

// LagReport is the replication lag of the secondaries under workload A.
type LagReport struct {
	DurationSecs  float64     `json:"durationSecs"`
	Threads       int         `json:"threads"`
	W             string      `json:"w"`
	Throughput    float64     `json:"throughputOpsPerSec"`
	Operations    int64       `json:"operations"`
	PollInterval  float64     `json:"pollIntervalMs"`
	PollErrors    int         `json:"pollErrors"`
	Secondaries   []MemberLag `json:"secondaries"`
	PrimaryMember string      `json:"primary"`
}

// MemberLag is one secondary's lag over the polls.
type MemberLag struct {
	Name    string  `json:"name"`
	Samples int     `json:"samples"`
	P50Ms   float64 `json:"p50Ms"`
	P99Ms   float64 `json:"p99Ms"`
	MaxMs   float64 `json:"maxMs"`
}

// seen is the primary's applied optime as first seen at a time.
type seen struct {
	at time.Time
	ts bson.Timestamp
}

// lagAt is a secondary's lag at now: the time since the primary was
// first seen at an optime newer than applied (0 if none is newer).
// history is in increasing ts order.
func lagAt(history []seen, applied bson.Timestamp, now time.Time) time.Duration {
	for _, h := range history {
		if tsAfter(h.ts, applied) {
			return max(now.Sub(h.at), 0)
		}
	}
	return 0
}

func tsAfter(a, b bson.Timestamp) bool { return a.T > b.T || (a.T == b.T && a.I > b.I) }

// runLag loads and runs workload A against c for cfg.LagDuration while
// polling every member's replSetGetStatus.
func runLag(ctx context.Context, c *cluster.Cluster, cfg Config, progress io.Writer) (*LagReport, error) {
	uri := c.URI() + "&w=" + cfg.LagW
	props, err := bench.Preset("a")
	if err != nil {
		return nil, err
	}
	props["mongodb.url"] = uri
	props["threadcount"] = fmt.Sprint(cfg.LagThreads)
	fmt.Fprintf(progress, "lag run: loading workload A (w:%s)\n", cfg.LagW)
	if _, err := bench.RunPhase(ctx, bench.PhaseConfig{Phase: bench.PhaseLoad, Props: props, Drop: true}); err != nil {
		return nil, fmt.Errorf("failover: load workload A: %w", err)
	}
	props["operationcount"] = "1000000000"
	props["maxexecutiontime"] = fmt.Sprint(int(cfg.LagDuration.Seconds()))
	p := &lagPoller{c: c}
	pctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); p.run(pctx) }()
	fmt.Fprintf(progress, "lag run: workload A for %v\n", cfg.LagDuration)
	res, err := bench.RunPhase(ctx, bench.PhaseConfig{Phase: bench.PhaseRun, Props: props})
	stop()
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("failover: run workload A: %w", err)
	}
	lr := p.report()
	lr.DurationSecs, lr.Threads, lr.W = cfg.LagDuration.Seconds(), cfg.LagThreads, cfg.LagW
	lr.Throughput, lr.Operations = res.Throughput, res.Operations
	return lr, nil
}

// lagPoller samples every member's own applied optime.
type lagPoller struct {
	c       *cluster.Cluster
	history []seen               // primary optimes, increasing
	samples map[string][]float64 // secondary name -> lag ms per poll
	primary string
	errors  int
}

func (p *lagPoller) run(ctx context.Context) {
	p.samples = map[string][]float64{}
	for ctx.Err() == nil {
		p.poll(ctx)
		_ = sleepCtx(ctx, lagPollInterval)
	}
}

// selfStatus is the part of a member's own replSetGetStatus the poller reads.
type selfStatus struct {
	MyState int32 `bson:"myState"`
	Optimes struct {
		Applied struct {
			TS bson.Timestamp `bson:"ts"`
		} `bson:"appliedOpTime"`
	} `bson:"optimes"`
}

func (p *lagPoller) poll(ctx context.Context) {
	sts := map[string]selfStatus{}
	for _, m := range p.c.Members() {
		var st selfStatus
		if err := p.c.RunAdmin(ctx, m, bson.D{{Key: "replSetGetStatus", Value: 1}}, &st); err != nil {
			if ctx.Err() == nil {
				p.errors++
			}
			continue
		}
		sts[m.Name] = st
		if st.MyState == 1 {
			p.primary = m.Name
			p.notePrimary(st.Optimes.Applied.TS)
		}
	}
	now := time.Now()
	for name, st := range sts {
		if st.MyState == 2 {
			p.samples[name] = append(p.samples[name], ms(lagAt(p.history, st.Optimes.Applied.TS, now)))
		}
	}
}

func (p *lagPoller) notePrimary(ts bson.Timestamp) {
	if n := len(p.history); n == 0 || tsAfter(ts, p.history[n-1].ts) {
		p.history = append(p.history, seen{at: time.Now(), ts: ts})
	}
}

func (p *lagPoller) report() *LagReport {
	r := &LagReport{PollInterval: ms(lagPollInterval), PollErrors: p.errors, PrimaryMember: p.primary}
	for _, m := range p.c.Members() {
		s, ok := p.samples[m.Name]
		if !ok {
			continue
		}
		r.Secondaries = append(r.Secondaries, MemberLag{Name: m.Name, Samples: len(s),
			P50Ms: percentile(s, 50), P99Ms: percentile(s, 99), MaxMs: percentile(s, 100)})
	}
	return r
}

func (r *LagReport) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replication lag under YCSB workload A (%d threads, w:%s, %.0f s, %.0f ops/s; polled every %.0f ms):\n",
		r.Threads, r.W, r.DurationSecs, r.Throughput, r.PollInterval)
	for _, s := range r.Secondaries {
		fmt.Fprintf(&b, "  %s: p50 %.0f ms, p99 %.0f ms, max %.0f ms (%d samples)\n", s.Name, s.P50Ms, s.P99Ms, s.MaxMs, s.Samples)
	}
	return b.String()
}
