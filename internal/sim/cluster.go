package sim

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/repl/applier"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/topology"
	"github.com/relaydb/relaydb/internal/storage"
)

// Bug injects a known defect into the simulated replication so tests can
// show the invariant checks catch it.
type Bug int

const (
	// NoBug runs the real replication path.
	NoBug Bug = iota
	// BugSkipUndo truncates a diverged oplog without rollback.Run: the
	// undone entries' documents stay.
	BugSkipUndo
	// BugIgnoreDivergence skips rollback entirely and applies the source's
	// entries newer than our last one on top of the diverged oplog.
	BugIgnoreDivergence
	// BugReportAhead has secondaries report the sync source's newest entry
	// as their position instead of their own: the primary commits writes a
	// majority does not hold.
	BugReportAhead
)

// Options configure New. Zero values take the defaults written on each.
type Options struct {
	N       int    // members; the first min(N, 7) vote, the rest are priority 0
	Seed    uint64 // seeds the network, the schedule and election offsets
	Dir     string // rollback files go under Dir/n<i> (required)
	Step    time.Duration
	Bug     Bug
	Network NetOptions
	// FetchBatch caps the entries of one fetch reply; default 20.
	FetchBatch int
}

// Cluster is a simulated replica set. It is not safe for concurrent use:
// the simulation runs on the caller's goroutine.
type Cluster struct {
	opts    Options
	cfg     topology.Config
	t0, now time.Time
	rng     *rand.Rand
	members []*Member
	net     *network
	chk     *checker
	events  []string
	nextDoc int64
	logger  *slog.Logger
	err     error // first failure of the real code (apply, rollback)
	stats   struct{ rollbacks, undone int }
}

// Member is one simulated replica-set member.
type Member struct {
	idx, id  int
	host     string
	alive    bool
	topo     *topology.Coordinator
	cat      *catalog.Catalog
	fs       vfs.FS
	term     int64 // durable term and vote (stable storage)
	lastVote topology.PersistVote
	rng      *rand.Rand
	inc      int // incarnation: bumped on restart, stale replies are dropped
	fetch    fetchState
	pending  []write // writes accepted as primary, not yet committed
}

// New starts an N-member set and returns it; Close releases it.
func New(opts Options) (*Cluster, error) {
	opts.defaults()
	cl := &Cluster{opts: opts, t0: time.Unix(1_000_000, 0), rng: rand.New(rand.NewPCG(opts.Seed, 7)),
		logger: slog.New(slog.DiscardHandler)}
	cl.now = cl.t0
	cl.net = newNetwork(opts.Network, rand.New(rand.NewPCG(opts.Seed, 11)))
	cl.chk = newChecker()
	cl.cfg = topology.NewConfig("rs0")
	for i := range opts.N {
		m := topology.NewMember(i, fmt.Sprintf("n%d", i))
		if i >= topology.MaxVotingMembers {
			m.Votes, m.Priority = 0, 0
		}
		cl.cfg.Members = append(cl.cfg.Members, m)
	}
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

// initiate gives every member the same first oplog entry, the
// "initiating set" no-op that replSetInitiate writes and initial sync
// copies, so any two oplogs share a common point for rollback.
func (cl *Cluster) initiate() error {
	first := cl.members[0]
	if _, err := first.cat.WriteNoop(bson.D{{Key: "msg", Value: "initiating set"}}); err != nil {
		return fmt.Errorf("sim: initiate: %w", err)
	}
	entries, err := first.cat.Oplog().Read(bsonZero, true, 0)
	if err != nil {
		return fmt.Errorf("sim: initiate: %w", err)
	}
	for _, m := range cl.members {
		if m != first {
			if _, err := applier.ApplyBatch(m.cat, entries, cl.logger); err != nil {
				return fmt.Errorf("sim: initiate n%d: %w", m.id, err)
			}
		}
		cl.do(m, m.topo.LocalApplied(cl.now, m.last()))
	}
	return nil
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
}

// addMember creates member i's storage and starts it.
func (cl *Cluster) addMember(i int) error {
	mc := cl.cfg.Members[i]
	m := &Member{idx: i, id: mc.ID, host: mc.Host, fs: vfs.NewMem(),
		rng: rand.New(rand.NewPCG(cl.opts.Seed, uint64(100+i)))}
	cl.members = append(cl.members, m)
	return cl.start(m)
}

// start opens m's catalog on its MemFS and builds a fresh Coordinator from
// its durable state (term, vote, oplog top), as a restarted process does.
func (cl *Cluster) start(m *Member) error {
	cat, err := catalog.Open(catalog.Options{
		Storage: storage.Options{InMemory: true, FS: m.fs, Logger: cl.logger, CacheSizeMB: 1, DocCacheMB: 1},
		Logger:  cl.logger, Now: func() time.Time { return cl.now }, TTLInterval: -1,
	})
	if err != nil {
		return fmt.Errorf("sim: open n%d: %w", m.id, err)
	}
	if err := markers.Recover(cat, cl.logger); err != nil {
		_ = cat.Close()
		return fmt.Errorf("sim: recover n%d: %w", m.id, err)
	}
	m.cat, m.alive, m.inc = cat, true, m.inc+1
	m.fetch = fetchState{}
	m.pending = nil
	m.topo = topology.New(topology.Options{Config: cl.cfg, SelfHost: m.host, Now: cl.now, Rand: m.rng,
		Term: m.term, LastVote: m.lastVote, Applied: m.last()})
	return nil
}

// last returns the OpTime of m's newest oplog entry.
func (m *Member) last() topology.OpTime {
	ts, term := m.cat.Oplog().Top()
	return topology.OpTime{TS: ts, Term: term}
}

// kill stops m: its catalog closes (MemFS keeps the data), messages to and
// from it are lost.
func (cl *Cluster) kill(m *Member) error {
	if !m.alive {
		return nil
	}
	m.alive = false
	if err := m.cat.Close(); err != nil {
		return fmt.Errorf("sim: close n%d: %w", m.id, err)
	}
	return nil
}

// Close releases every member's storage.
func (cl *Cluster) Close() {
	for _, m := range cl.members {
		_ = cl.kill(m)
	}
}

// Now returns the simulated time since the start.
func (cl *Cluster) Now() time.Duration { return cl.now.Sub(cl.t0) }

// Err returns the first failure of the replication code (apply, rollback)
// or of an invariant, nil if none.
func (cl *Cluster) Err() error {
	if cl.err != nil {
		return cl.err
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
// rollbacks).
func (cl *Cluster) TakeEvents() string {
	s := strings.Join(cl.events, "\n")
	cl.events = nil
	return s
}

func (cl *Cluster) byID(id int) *Member {
	if i := cl.cfg.MemberIndex(id); i >= 0 && i < len(cl.members) {
		return cl.members[i]
	}
	return nil
}

func (cl *Cluster) rollbackDir(m *Member) string {
	return filepath.Join(cl.opts.Dir, fmt.Sprintf("n%d", m.id))
}
