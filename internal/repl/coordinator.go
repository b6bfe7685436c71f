package repl

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/clock"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// Transport carries the coordinator's node-to-node commands (heartbeats,
// vote requests, config fetches, position reports) to the admin database
// of other members: *netclient.Pool in production, memnet.Network (the
// test delivers each message) in tests.
type Transport interface {
	// Send sends cmd to host and calls done exactly once with the reply
	// or an error; timeout bounds the exchange. Send must not block and
	// must not call done before it returns: the coordinator sends while
	// holding its lock, and done takes it.
	Send(host string, cmd bson.D, timeout time.Duration, done func(reply bson.D, err error))
}

// Syncer is the sync loop of a secondary: it fetches the oplog from
// source after from, applies it and reports progress through the
// Progress it was built with. Stop returns once it has stopped; it must
// not wait for the Coordinator's lock.
type Syncer interface {
	Start(source string, from topology.OpTime)
	Stop()
}

// Progress receives a Syncer's positions. Its methods never block.
type Progress interface {
	OnApplied(op topology.OpTime)
	OnDurable(op topology.OpTime)
}

// Options configure New.
type Options struct {
	Catalog   *catalog.Catalog
	Self      string // host:port as it appears in the config
	SetName   string // --replSet
	Transport Transport
	Logger    *slog.Logger
	// Clock is the coordinator's time and timers; nil means the wall
	// clock (clock.Real). A clock.Manual makes it steppable.
	Clock clock.Clock
	Rand  *rand.Rand
	// NewSyncer builds the sync loop; nil means this member never fetches
	// (tests of elections alone).
	NewSyncer func(p Progress) Syncer
	// TickInterval is how often the topology is ticked; 0 means 50 ms.
	TickInterval time.Duration
	// Stepped: Start is not called; the driver calls Tick and Step (see
	// step.go), and a durable position is always a forced WAL sync.
	Stepped bool
}

// Coordinator is one member's replica-set coordinator.
type Coordinator struct {
	opts Options
	cat  *catalog.Catalog
	log  *slog.Logger
	clk  clock.Clock

	// stepUp, when set, runs as this member becomes primary (SetStepUpHook).
	stepUp atomic.Pointer[func()]

	// waiting counts write-concern waiters: while there are none, a
	// primary reports durability from the background journal flush
	// instead of forcing a WAL sync per batch of writes.
	waiting atomic.Int32

	processID bson.ObjectID
	started   time.Time
	snap      atomic.Pointer[snapshot]

	// mu guards the member's replication state. Every call into the
	// topology happens under it and the actions it returns are carried
	// out before it is released; messages to other members are only
	// queued (Transport.Send). Methods that need it say REQUIRES: c.mu.
	//
	// TODO(#15): storage I/O still runs under mu: the vote and config
	// writes with their WAL sync (persistVoteLocked, installConfigLocked:
	// a vote must be durable before it is answered), the new primary's
	// no-op (becomePrimaryLocked), the config, vote and flag reads of
	// installLocked, and stopping the Syncer (it waits for the batch being
	// applied). Moving them out needs a "persist, then continue" step in
	// the event flow.
	mu struct {
		sync.Mutex
		topo      *topology.Coordinator // nil until a config is installed
		acceptW   bool                  // no-op of the term written, not stepped down
		durable   topology.OpTime
		tvCounter int64
		changed   chan struct{} // closed on any state or position change
		peers     map[int]*peer
		// downstream are positions reported to us, forwarded upstream.
		downstream   map[int]position
		syncer       Syncer
		syncHost     string
		stepWait     chan error // pending replSetStepDown
		maintenance  int
		fetchingCfg  bool
		electedAt    time.Time
		electionTerm int64
		// initialSyncing: the Syncer runs an initial sync (STARTUP2 until done).
		initialSyncing bool
	}

	pending pendingPositions
	step    stepState     // Stepped only, driver goroutine only
	wake    chan struct{} // cap 1: positions pending
	report  chan struct{} // cap 1: report positions upstream now
	stop    chan struct{}
	wg      sync.WaitGroup
}

// position is a member's written/applied/durable OpTimes.
type position struct {
	Written, Applied, Durable topology.OpTime
	Term                      int64
	CfgVer                    int64
}

// New returns a Coordinator; it loads the persisted config and vote. Call
// Start to run it.
func New(opts Options) (*Coordinator, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.Real()
	}
	if opts.TickInterval <= 0 {
		opts.TickInterval = 50 * time.Millisecond
	}
	if opts.Rand == nil {
		// Never a fixed seed: members sharing one would time out in step
		// and split every election (see topology.Options.Rand).
		opts.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	c := &Coordinator{
		opts: opts, cat: opts.Catalog, log: opts.Logger.With("component", "repl"), clk: opts.Clock,
		processID: bson.NewObjectID(),
		wake:      make(chan struct{}, 1), report: make(chan struct{}, 1), stop: make(chan struct{}),
	}
	c.mu.changed = make(chan struct{})
	c.mu.peers, c.mu.downstream = map[int]*peer{}, map[int]position{}
	c.started = c.now()
	c.step.tail.after = c.cat.Oplog().Visible()
	cfg, ok, err := loadConfig(c.cat)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		if err := c.installLocked(cfg); err != nil {
			return nil, err
		}
	}
	c.publishLocked()
	return c, nil
}

// installLocked creates the topology coordinator from cfg and what was
// persisted (vote, last applied OpTime). REQUIRES: c.mu.
func (c *Coordinator) installLocked(cfg topology.Config) error {
	vote, err := loadVote(c.cat)
	if err != nil {
		return err
	}
	applied, err := lastApplied(c.cat)
	if err != nil {
		return err
	}
	c.mu.topo = topology.New(topology.Options{
		Config: cfg, SelfHost: c.opts.Self, Now: c.now(), Rand: c.opts.Rand,
		Term: vote.Term, LastVote: vote, Applied: applied,
	})
	c.mu.durable = applied
	c.startup2IfUnsyncedLocked()
	c.log.Info("replica set config installed", "set", cfg.Name, "version", cfg.Version,
		"term", cfg.Term, "state", c.mu.topo.State().String())
	c.bumpLocked()
	return nil
}

// Start runs the coordinator's goroutines.
func (c *Coordinator) Start() {
	c.wg.Add(3)
	go c.loop()
	go c.tailLocal()
	go c.reporter()
}

// Stop ends the goroutines and the sync loop.
func (c *Coordinator) Stop() {
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	c.wg.Wait()
	c.mu.Lock()
	c.stopSyncerLocked()
	c.mu.acceptW = false
	c.publishLocked()
	c.mu.Unlock()
}

// loop ticks the topology and feeds it the positions posted by the local
// oplog tail and the Syncer.
func (c *Coordinator) loop() {
	defer c.wg.Done()
	t := c.clk.NewTicker(c.opts.TickInterval)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C():
			c.Tick()
		case <-c.wake:
			c.feedPending()
		}
	}
}

// Tick advances the topology to the clock's time (election timeouts,
// heartbeat schedule, catch-up) and carries out what it decides. Start's
// loop calls it every TickInterval; a driver that steps the coordinator
// itself (a manual clock, no Start) calls it instead.
func (c *Coordinator) Tick() {
	c.event(func(now time.Time) []topology.Action { return c.mu.topo.Tick(now) })
}

// now is the coordinator's clock reading.
func (c *Coordinator) now() time.Time { return c.clk.Now() }

// event calls f on the topology (if configured) under mu and carries out
// its actions.
func (c *Coordinator) event(f func(now time.Time) []topology.Action) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.eventLocked(f)
}

// eventLocked is event with mu held. REQUIRES: c.mu.
func (c *Coordinator) eventLocked(f func(now time.Time) []topology.Action) {
	if c.mu.topo == nil {
		return
	}
	c.applyLocked(f(c.now()))
	c.publishLocked()
}

// bumpLocked records a topology change for hello's topologyVersion.
// REQUIRES: c.mu.
func (c *Coordinator) bumpLocked() { c.mu.tvCounter++ }

// notifyLocked wakes every waiter (write concern, awaitable hello).
// REQUIRES: c.mu.
func (c *Coordinator) notifyLocked() {
	close(c.mu.changed)
	c.mu.changed = make(chan struct{})
}

func (c *Coordinator) String() string { return fmt.Sprintf("repl(%s)", c.opts.Self) }
