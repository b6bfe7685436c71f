package sim

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/vfs"

	"github.com/relaydb/relaydb/internal/repl/clock"
	"github.com/relaydb/relaydb/internal/repl/memnet"
)

// SetName is the simulated replica set's name.
const SetName = "rs0"

// Options configure New. Zero values take the defaults written on each.
type Options struct {
	N    int    // members; the first min(N, 7) vote, the rest are priority 0
	Seed uint64 // seeds the network, the schedule and election offsets
	Dir  string // rollback files go under Dir/n<i> (required)
	// Step is how far the clock moves per step (the coordinator's tick);
	// default 10 ms.
	Step    time.Duration
	Network NetOptions
	// FetchBatch caps the entries of one find/getMore batch; default 20.
	FetchBatch int
	// CloneBatch is initial sync's documents per batch; 0 is the source's
	// default.
	CloneBatch int
	// Logger receives the members' logs; nil discards them.
	Logger *slog.Logger
}

// Cluster is a simulated replica set. It is not safe for concurrent use:
// the simulation runs on the caller's goroutine (see memnet.Coroutine for
// the sync loops' own goroutines, which never run alongside it).
type Cluster struct {
	opts    Options
	t0      time.Time
	clk     *clock.Manual
	rng     *rand.Rand
	members []*Member
	net     *memnet.Network
	sched   *schedule
	cut     bool // some link is partitioned
	chk     *checker
	events  []string
	nextDoc int64
	logger  *slog.Logger
	err     error // first failure of the real code (a command, storage)
	fatal   *fatalHook
	stats   struct{ rollbacks, undone int }
}

// New starts an N-member set, initiates it on member 0 (replSetInitiate;
// the others learn the config by heartbeat and sync from scratch) and
// returns it; Close releases it.
func New(opts Options) (*Cluster, error) {
	opts.defaults()
	t0 := time.Unix(1_000_000, 0)
	cl := &Cluster{opts: opts, t0: t0, clk: clock.NewManual(t0), rng: rand.New(rand.NewPCG(opts.Seed, 7)),
		net: memnet.New()}
	cl.logger = slog.New(simTime{h: opts.Logger.Handler(), now: cl.clk.Now})
	cl.sched = newSchedule(opts.Network, rand.New(rand.NewPCG(opts.Seed, 11)))
	cl.fatal = installFatalHook()
	cl.chk = newChecker()
	for i := range opts.N {
		if err := cl.addMember(i); err != nil {
			cl.Close()
			return nil, err
		}
	}
	if err := cl.initiate(); err != nil {
		cl.Close()
		return nil, err
	}
	return cl, nil
}

func (o *Options) defaults() {
	if o.N <= 0 {
		o.N = 3
	}
	if o.Step <= 0 {
		o.Step = 10 * time.Millisecond
	}
	if o.FetchBatch <= 0 {
		o.FetchBatch = 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// addMember creates member id's storage and starts it.
func (cl *Cluster) addMember(id int) error {
	m := &Member{idx: len(cl.members), id: id, host: hostOf(id), disk: vfs.NewStrictMem(),
		rng: rand.New(rand.NewPCG(cl.opts.Seed, uint64(100+id)))}
	if err := makeDBPath(m.disk); err != nil {
		return fmt.Errorf("sim: n%d: %w", id, err)
	}
	cl.members = append(cl.members, m)
	return cl.start(m)
}

func hostOf(id int) string { return fmt.Sprintf("n%d:27017", id) }

// Close stops every member and releases its storage.
func (cl *Cluster) Close() {
	for _, m := range cl.members {
		_ = cl.kill(m)
	}
}

// Now returns the simulated time since the start.
func (cl *Cluster) Now() time.Duration { return cl.clk.Now().Sub(cl.t0) }

// Err returns the first failure of the replication code or of an
// invariant, nil if none.
func (cl *Cluster) Err() error {
	if cl.err != nil {
		return cl.err
	}
	if err := cl.fatal.unexpected(); err != nil {
		return err
	}
	return cl.chk.err
}

func (cl *Cluster) fail(err error) {
	if cl.err == nil {
		cl.err = fmt.Errorf("at %v: %w", cl.Now(), err)
	}
}

func (cl *Cluster) eventf(format string, args ...any) {
	cl.events = append(cl.events, fmt.Sprintf("%.3fs ", cl.Now().Seconds())+fmt.Sprintf(format, args...))
}

// TakeEvents returns and clears the event log (elections, step-downs,
// rollbacks, initial syncs).
func (cl *Cluster) TakeEvents() string {
	s := strings.Join(cl.events, "\n")
	cl.events = nil
	return s
}

func (cl *Cluster) byID(id int) *Member {
	for _, m := range cl.members {
		if m.id == id {
			return m
		}
	}
	return nil
}

func (cl *Cluster) byHost(host string) *Member {
	for _, m := range cl.members {
		if m.host == host {
			return m
		}
	}
	return nil
}

func (cl *Cluster) rollbackDir(m *Member) string {
	return filepath.Join(cl.opts.Dir, fmt.Sprintf("n%d", m.id))
}

// makeDBPath creates the member's data directory durably, as an operator
// does before the first start (a power failure must not take it away).
func makeDBPath(fs vfs.FS) error {
	if err := fs.MkdirAll("db", 0o755); err != nil {
		return err
	}
	root, err := fs.OpenDir("")
	if err != nil {
		return err
	}
	defer root.Close()
	return root.Sync()
}
