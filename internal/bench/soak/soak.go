package soak

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/relaydb/relaydb/internal/cluster"
	"github.com/relaydb/relaydb/internal/crashtest"
)

// Config is one soak run. Zero values mean the default on each field.
type Config struct {
	Duration     time.Duration // default 30m
	KillInterval time.Duration // default 2m
	RSSLimit     int64         // bytes; default 1 GiB
	Threads      int           // YCSB workers; default 4
	Records      int           // YCSB records at most; default 50,000
	Hostile      time.Duration // one hostile connection per interval; default 100ms
	DDLPause     time.Duration // pause between DDL ops; default 5ms
	Data         int           // 0: one server; N: an N-member replica set
	Bin          string        // relaydb binary; default this executable
	Dir          string        // data directory; default a temporary one, removed after
	Seed         uint64        // default: time
	Log          io.Writer     // progress lines; default discard
}

func (c *Config) ensureDefaults() error {
	def := func(p *time.Duration, d time.Duration) {
		if *p == 0 {
			*p = d
		}
	}
	def(&c.Duration, 30*time.Minute)
	def(&c.KillInterval, 2*time.Minute)
	def(&c.Hostile, 100*time.Millisecond)
	def(&c.DDLPause, 5*time.Millisecond)
	if c.RSSLimit == 0 {
		c.RSSLimit = 1 << 30
	}
	if c.Threads == 0 {
		c.Threads = 4
	}
	if c.Records == 0 {
		c.Records = 50_000
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	var err error
	if c.Bin == "" {
		c.Bin, err = os.Executable()
	}
	return err
}

// soak is one run's state.
type soak struct {
	cfg    Config
	target crashtest.Target
	pids   func() []int
	g      *gate
	y      *ycsb
	ddl    *crashtest.Stream
	ddlMu  sync.Mutex // held by the DDL op and by the check
	ddlErr []string   // DDL failures while up and failed checks (first few)
	rep    *Report
}

// Run starts the target, runs the soak and returns its report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.ensureDefaults(); err != nil {
		return nil, err
	}
	dir, cleanup, err := workDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	s := &soak{cfg: cfg, g: newGate(), rep: newReport(cfg)}
	stop, err := s.start(ctx, dir)
	if err != nil {
		return nil, err
	}
	defer stop()
	err = s.loop(ctx)
	s.rep.finish(s)
	return s.rep, err
}

func workDir(dir string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	d, err := os.MkdirTemp("", "relaydb-soak-")
	return d, func() { os.RemoveAll(d) }, err
}

// start starts the server or set and returns how to stop it.
func (s *soak) start(ctx context.Context, dir string) (func(), error) {
	if s.cfg.Data == 0 {
		srv, err := crashtest.StartServer(ctx, s.cfg.Bin, dir)
		if err != nil {
			return nil, err
		}
		s.target, s.pids = srv, srv.PIDs
		return srv.Stop, nil
	}
	c, err := cluster.Up(ctx, cluster.Spec{Dir: dir, Data: s.cfg.Data, Bin: s.cfg.Bin, DieWithParent: true})
	if err != nil {
		return nil, err
	}
	rs := &crashtest.ReplSet{C: c}
	s.target, s.pids = rs, rs.PIDs
	return func() { _ = c.Down(context.Background()) }, crashtest.WaitSettled(ctx, c)
}

// loop runs the load for the duration with a kill cycle every interval,
// then a last kill cycle so the tail of acknowledged ops is checked too.
func (s *soak) loop(ctx context.Context) error {
	cl, err := s.client()
	if err != nil {
		return err
	}
	defer cl.Disconnect(context.Background())
	wc := s.target.WriteConcern()
	j := wc.J
	coll := cl.Database(ycsbDB).Collection(ycsbTable,
		options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: wc.W, Journal: &j}))
	s.y = newYCSB(cl, coll, s.g, s.cfg.Threads, s.cfg.Records, s.cfg.Seed)
	s.ddl = crashtest.NewStream(crashtest.NewGenerator(s.cfg.Seed), wc)
	h := &hostile{addr: s.hostAddr, killed: s.g.killed, interval: s.cfg.Hostile, r: newRand(s.cfg.Seed)}
	rss := &rssSampler{pids: s.pids}
	s.rep.hostile, s.rep.rss = h, rss

	// Cancelled, not a deadline: the driver refuses to send an op whose
	// deadline is nearer than a round trip, which would count as a failure.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	time.AfterFunc(s.cfg.Duration, cancel)
	var wg sync.WaitGroup
	spawn := func(f func()) { wg.Add(1); go func() { defer wg.Done(); f() }() }
	for _, w := range s.y.workers {
		spawn(func() { s.y.run(runCtx, w) })
	}
	spawn(func() { s.runDDL(runCtx, cl) })
	spawn(func() { h.run(runCtx) })
	rssCtx, stopRSS := context.WithCancel(ctx)
	defer stopRSS()
	go rss.run(rssCtx)

	var errs []error
	tick := time.NewTicker(s.cfg.KillInterval)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-runCtx.Done():
			done = true
		case <-tick.C:
			if err := s.killCycle(ctx, cl); err != nil {
				errs = append(errs, err)
				fmt.Fprintf(s.cfg.Log, "soak: kill cycle: %v\n", err)
			}
		}
	}
	wg.Wait()
	if err := s.killCycle(ctx, cl); err != nil { // the final check
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func (s *soak) client() (*mongo.Client, error) {
	return mongo.Connect(options.Client().ApplyURI(s.target.URI()).SetRetryWrites(false).
		SetServerSelectionTimeout(3 * time.Second).SetHeartbeatInterval(500 * time.Millisecond).
		SetMaxPoolSize(uint64(s.cfg.Threads + 4)))
}

// hostAddr is where hostile connections go: the first check URI's host.
func (s *soak) hostAddr() string {
	if srv, ok := s.target.(*crashtest.Server); ok {
		return fmt.Sprintf("127.0.0.1:%d", srv.Port)
	}
	return s.target.(*crashtest.ReplSet).C.Members()[0].Host
}

// runDDL runs the crashtest generator's ops back to back. After a failure
// while the server was up its outcome is unknown until the next check, so
// it waits for the next kill cycle.
func (s *soak) runDDL(ctx context.Context, cl *mongo.Client) {
	for s.g.enter(ctx) {
		s.ddlMu.Lock()
		err := s.ddl.Step(ctx, cl, s.g.killed)
		s.ddlMu.Unlock()
		cycle := s.g.cycle()
		s.g.exit()
		if err != nil && !errors.Is(err, crashtest.ErrKilled) && ctx.Err() == nil {
			s.note("DDL op failed while the server was up: %v", err)
		}
		if err != nil {
			s.g.waitCycle(ctx, cycle)
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(s.cfg.DDLPause):
		}
	}
}

func (s *soak) note(f string, a ...any) {
	msg := fmt.Sprintf(f, a...)
	fmt.Fprintln(s.cfg.Log, "soak: "+msg)
	s.ddlMu.Lock()
	if len(s.ddlErr) < 20 {
		s.ddlErr = append(s.ddlErr, msg)
	}
	s.ddlMu.Unlock()
}
