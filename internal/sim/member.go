package sim

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/cockroachdb/pebble/vfs/errorfs"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/catalog"
	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/repl"
	"github.com/relaydb/relaydb/internal/repl/fetcher"
	"github.com/relaydb/relaydb/internal/repl/markers"
	"github.com/relaydb/relaydb/internal/repl/memnet"
	"github.com/relaydb/relaydb/internal/repl/rollback"
	"github.com/relaydb/relaydb/internal/storage"
)

// Member is one simulated replica-set member: the parts relaydb serve
// assembles (catalog, markers.Recover, executor, command dispatcher,
// repl.Coordinator with its sync loop), on its own in-memory filesystem,
// stepped instead of run.
type Member struct {
	idx, id int
	host    string
	alive   bool
	disk    *vfs.MemFS // strict: a power loss keeps only what was synced
	fault   diskFault
	rng     *rand.Rand
	cat     *catalog.Catalog
	eng     *exec.Engine
	disp    *command.Dispatcher
	coord   *repl.Coordinator
	conn    *command.Conn
	view    repl.View // as of the last observation
	pending []write   // writes accepted as primary, not yet committed
}

// start opens m's catalog on its MemFS and builds the member from its
// durable state, as a restarted process does.
func (cl *Cluster) start(m *Member) error {
	log := cl.logger.With("member", fmt.Sprintf("n%d", m.id))
	cat, err := catalog.Open(catalog.Options{
		Storage: storage.Options{InMemory: true, FS: errorfs.Wrap(m.disk, cl.injector(m)), Logger: log,
			CacheSizeMB: 1, DocCacheMB: 1},
		Logger: log, Now: cl.clk.Now, TTLInterval: -1,
	})
	if err != nil {
		return fmt.Errorf("sim: open n%d: %w", m.id, err)
	}
	if err := markers.Recover(cat, log); err != nil {
		_ = cat.Close()
		return fmt.Errorf("sim: recover n%d: %w", m.id, err)
	}
	m.cat, m.eng = cat, exec.New(cat, log)
	m.disp = command.NewDispatcher(m.eng, command.Info{Host: m.host, Version: "sim", StartTime: cl.clk.Now()}, log)
	m.conn = command.NewConn(int64(m.id), "client", m.host)
	ep := cl.net.Endpoint(m.host)
	m.coord, err = repl.New(repl.Options{
		Catalog: cat, Self: m.host, SetName: SetName, Transport: ep, Logger: log,
		Clock: cl.clk, Rand: m.rng, Stepped: true,
		NewSyncer: repl.NewSyncLoop(repl.SyncOptions{
			Catalog: cat, Logger: log, Clock: cl.clk, Stepped: true, CloneBatchSize: int32(cl.opts.CloneBatch),
			Fetcher: &fetcher.Fetcher{BatchSize: int32(cl.opts.FetchBatch), Logger: log},
			Dial: func(ctx context.Context, host string) (repl.SourceConn, error) {
				return &conn{ctx: ctx, ep: ep, host: host}, nil
			},
			Rollback: cl.rollbackHook(m, log),
		}),
	})
	if err != nil {
		m.eng.Close()
		_ = cat.Close()
		return fmt.Errorf("sim: start n%d: %w", m.id, err)
	}
	m.disp.SetReplication(m.coord)
	m.alive, m.pending, m.view = true, nil, repl.View{}
	cl.net.Register(m.host, m.handle)
	cl.net.Isolate(m.host, false)
	return nil
}

// kill stops m as a crashed process: its messages in flight are lost, its
// sync loop ends, its storage closes (the MemFS keeps what was written).
func (cl *Cluster) kill(m *Member) error { return cl.stop(m, false) }

// powerFail stops m and keeps only what its disk had synced.
func (cl *Cluster) powerFail(m *Member) error { return cl.stop(m, true) }

func (cl *Cluster) stop(m *Member, lose bool) error {
	if !m.alive {
		return nil
	}
	m.alive = false
	cl.net.Isolate(m.host, true)
	m.coord.Stop()
	cl.net.DropHost(m.host)
	m.eng.Close()
	m.fault.armed.Store(false) // a fault not yet hit dies with the process
	failed := m.fault.failed.Load()
	if lose || failed {
		m.disk.SetIgnoreSyncs(true) // closing must not make anything durable
	}
	err := m.cat.Close()
	if lose || failed {
		m.disk.ResetToSyncedState()
		m.disk.SetIgnoreSyncs(false)
	}
	m.fault.reset()
	if err != nil && !failed {
		return fmt.Errorf("sim: close n%d: %w", m.id, err)
	}
	return nil
}

// handle runs a command sent to m over the network through its command
// dispatcher, as the server does for a request.
func (m *Member) handle(_ context.Context, cmd bson.D) (bson.D, error) {
	if _, ok := bsonx.Get(cmd, "$db"); !ok {
		cmd = append(append(bson.D(nil), cmd...), bson.E{Key: "$db", Value: "admin"})
	}
	raw, err := bsonx.Encode(cmd)
	if err != nil {
		return nil, err
	}
	reply, err := bsonx.Decode(m.disp.Handle(m.conn, &command.Request{Body: raw}))
	if err != nil {
		return nil, err
	}
	return reply, netclient.ReplyError(reply)
}

// run runs a client's command on m.
func (m *Member) run(db string, cmd bson.D) (bson.D, error) {
	return m.handle(context.Background(), append(append(bson.D(nil), cmd...), bson.E{Key: "$db", Value: db}))
}

// conn is a sync loop's connection to its source: every command is a
// memnet message its coroutine waits for.
type conn struct {
	ctx  context.Context // the round's, carrying its coroutine
	ep   *memnet.Endpoint
	host string
}

// defaultCallTimeout bounds a call whose context has no deadline.
const defaultCallTimeout = 10 * time.Second

func (c *conn) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	// The caller's deadline is real time; its length is what the caller
	// meant, and it becomes simulated time for a call into a partition.
	timeout := defaultCallTimeout
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl).Round(100 * time.Millisecond)
	}
	body := make(bson.D, 0, len(cmd)+1)
	for _, e := range cmd {
		// No awaitData: an idle source answers an empty batch at once
		// rather than holding the getMore for maxTimeMS of real time; the
		// fetcher asks again, one message (one step) later.
		if e.Key != "awaitData" {
			body = append(body, e)
		}
	}
	body = append(body, bson.E{Key: "$db", Value: db})
	return c.ep.Call(c.ctx, c.host, body, timeout)
}

func (c *conn) Close() error { return nil }

// rollbackHook is relaydb serve's rollback (repl.RollbackHook), recorded
// in the event log.
func (cl *Cluster) rollbackHook(m *Member, log *slog.Logger) func(context.Context, fetcher.Source) (bool, error) {
	return func(ctx context.Context, src fetcher.Source) (bool, error) {
		hook := repl.RollbackHook(repl.RollbackOptions{Catalog: m.cat, Engine: m.eng, DBPath: cl.rollbackDir(m), Logger: log,
			Done: func(res rollback.Result) {
				cl.stats.rollbacks++
				cl.stats.undone += res.Undone
				cl.eventf("n%d rollback to %s: %d entries undone", m.id, cl.fmtOp(res.CommonPoint), res.Undone)
				m.pending = nil
			}})
		resync, err := hook(ctx, src)
		if err != nil && ctx.Err() == nil {
			cl.eventf("n%d rollback failed (resync=%v): %v", m.id, resync, err)
		}
		return resync, err
	}
}
