package shardsvr

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/migrate"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// MoveRangeRequest is a _shardsvrMoveRange: move the chunk [Min, Max) of
// NS, owned by this shard, to ToShard.
type MoveRangeRequest struct {
	NS            string
	ToShard       string
	Min, Max      bson.D
	WaitForDelete bool
}

// MoveResult describes a finished migration.
type MoveResult struct {
	Decision migrate.Decision
	Reason   string
	Stats    CloneStats
	Elapsed  time.Duration
	Critical time.Duration // the range's writes were blocked this long
}

// donorRun is the I/O side of one migration on the donor: it does what
// the coordinator's actions ask and feeds back their outcome.
type donorRun struct {
	m       *Migrations
	req     MoveRangeRequest
	session string
	me      string
	toConn  string
	cm      *routing.ChunkManager
	chunk   routing.Chunk
	indexes []bson.D
	options bson.D // the collection's options (validator, ...), for the recipient to create it alike
	src     *CloneSource
	inCrit  time.Time
	res     MoveResult
	steps   []any // slog attributes: each action's start, since the first
	began   time.Time
}

// migrationOptions bound a migration.
var migrationOptions = migrate.Options{CatchUpBytes: 1 << 20, CloneTimeout: 30 * time.Minute, PollEvery: 20 * time.Millisecond}

// MoveRange runs one migration from this shard to its end. A second one
// while one runs is ConflictingOperationInProgress.
func (m *Migrations) MoveRange(ctx context.Context, req MoveRangeRequest) (MoveResult, error) {
	session := newSessionID()
	m.mu.Lock()
	if m.donating != "" {
		m.mu.Unlock()
		return MoveResult{}, mongoerr.New(mongoerr.ConflictingOperationInProgress, "this shard is already donating a range (migration %s)", m.donating)
	}
	m.donating = session
	m.mu.Unlock()
	defer func() { m.mu.Lock(); m.donating = ""; m.mu.Unlock() }()

	r, err := m.prepareDonor(ctx, req, session)
	if err != nil {
		return MoveResult{}, err
	}
	start := time.Now()
	c, actions := migrate.New(migrationOptions, start)
	err = r.drive(ctx, c, actions)
	r.res.Elapsed = time.Since(start)
	if r.src != nil {
		r.res.Stats = r.src.Stats()
	}
	return r.res, err
}

func newSessionID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// prepareDonor checks the request against fresh metadata.
func (m *Migrations) prepareDonor(ctx context.Context, req MoveRangeRequest, session string) (*donorRun, error) {
	cm, me, err := m.opts.State.ChunkOwner(ctx, req.NS)
	if err != nil {
		return nil, err
	}
	if cm == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotSharded, "%s is not sharded", req.NS)
	}
	if req.ToShard == me {
		return nil, mongoerr.New(mongoerr.IllegalOperation, "the chunk is already on shard %s", me)
	}
	chunk, err := cm.FindChunk(req.Min)
	if err != nil {
		return nil, err
	}
	if key.Compare(chunk.Min, req.Min) != 0 || key.Compare(chunk.Max, req.Max) != 0 {
		return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "%s is not a chunk of %s (the chunk there is %s)",
			routing.Chunk{Min: req.Min, Max: req.Max}.Range(), req.NS, chunk.Range())
	}
	if chunk.Shard != me {
		return nil, mongoerr.New(mongoerr.ConflictingOperationInProgress, "the chunk %s of %s is on %s, not on this shard (%s)", chunk.Range(), req.NS, chunk.Shard, me)
	}
	toConn, err := m.shardConn(ctx, req.ToShard)
	if err != nil {
		return nil, err
	}
	db, name := splitNS(req.NS)
	coll := m.opts.Eng.Catalog().Collection(db, name)
	if coll == nil {
		return nil, mongoerr.New(mongoerr.NamespaceNotFound, "this shard has no collection %s", req.NS)
	}
	var indexes []bson.D
	for _, idx := range coll.Indexes() {
		if idx.Name != "_id_" {
			indexes = append(indexes, idx.Spec)
		}
	}
	return &donorRun{m: m, req: req, session: session, me: me, toConn: toConn, cm: cm, chunk: chunk, indexes: indexes,
		options: coll.Options}, nil
}

// drive carries out the coordinator's actions until Finish.
func (r *donorRun) drive(ctx context.Context, c *migrate.Coordinator, queue []migrate.Action) error {
	defer r.cleanup()
	for range 1 << 20 {
		if len(queue) == 0 {
			return mongoerr.New(mongoerr.InternalError, "migration of %s stopped without a decision", r.chunk.Range())
		}
		a := queue[0]
		queue = queue[1:]
		if a.Kind == migrate.Finish {
			r.res.Decision, r.res.Reason = a.Decision, a.Reason
			r.m.opts.Logger.Info("migration finished", append([]any{"ns", r.req.NS, "range", r.chunk.Range(), "to", r.req.ToShard,
				"decision", a.Decision.String(), "reason", a.Reason, "took", time.Since(r.began).Round(time.Millisecond).String()}, append(r.cloneAttrs(), r.steps...)...)...)
			if a.Decision != migrate.Committed {
				return mongoerr.New(mongoerr.OperationFailed, "migration of %s %s to %s aborted: %s", r.req.NS, r.chunk.Range(), r.req.ToShard, a.Reason)
			}
			return nil
		}
		if a.After > 0 {
			if err := sleep(ctx, a.After); err != nil {
				return err
			}
		}
		if !r.m.opts.IsPrimary() {
			return mongoerr.New(mongoerr.InterruptedDueToReplStateChange, "the donor stepped down during the migration of %s %s; its next primary recovers it", r.req.NS, r.chunk.Range())
		}
		if r.began.IsZero() {
			r.began = time.Now()
		}
		r.steps = append(r.steps, a.Kind.String(), time.Since(r.began).Round(time.Millisecond).String())
		if ev, ok := r.do(ctx, a); ok {
			queue = append(queue, c.Step(ev, time.Now())...)
		}
	}
	return mongoerr.New(mongoerr.InternalError, "migration of %s did not end", r.chunk.Range())
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do performs one action; ok is false for actions with no outcome event.
func (r *donorRun) do(ctx context.Context, a migrate.Action) (ev migrate.Event, ok bool) {
	switch a.Kind {
	case migrate.PersistCoordinator:
		return r.persisted(r.m.persistCoordinator(ctx, r))
	case migrate.StartRecipient:
		return r.startRecipient(ctx), true
	case migrate.PollRecipient:
		return r.pollRecipient(ctx), true
	case migrate.EnterCriticalSection:
		return r.enterSection(ctx), true
	case migrate.RecipientCommitStart:
		return r.recipientCommit(ctx), true
	case migrate.CommitOnConfig:
		return r.commitOnConfig(ctx), true
	case migrate.FenceCommit:
		return r.fence(ctx), true
	case migrate.ReadPlacement:
		return r.readPlacement(ctx), true
	case migrate.PersistDecision:
		return r.persisted(r.m.persistDecision(ctx, r.session, a.Decision))
	case migrate.ReleaseCriticalSection:
		r.release()
	case migrate.DeleteDonorRange:
		r.deleteDonorRange(ctx)
	case migrate.DeleteRecipientRange:
		r.deleteRecipientRange(ctx)
	}
	return migrate.Event{}, false
}

// persisted turns a persist's outcome into an event: a failure to persist
// (this member stepped down, the majority wait failed) means the next
// primary recovers the migration.
func (r *donorRun) persisted(err error) (migrate.Event, bool) {
	if err != nil {
		r.m.opts.Logger.Warn("migration: persisting failed", "ns", r.req.NS, "err", err)
		return migrate.Event{Kind: migrate.SteppedDown, Err: err.Error()}, true
	}
	return migrate.Event{Kind: migrate.Persisted}, true
}

func (r *donorRun) release() {
	if !r.inCrit.IsZero() {
		r.res.Critical = time.Since(r.inCrit)
	}
	r.m.opts.State.ExitRangeSection(r.req.NS)
}

func (r *donorRun) cleanup() {
	r.m.opts.State.ExitRangeSection(r.req.NS)
	r.m.mu.Lock()
	delete(r.m.sources, r.session)
	r.m.mu.Unlock()
	if r.src != nil {
		r.src.Close()
	}
}

func failed(err error) migrate.Event {
	return migrate.Event{Kind: migrate.RecipientFailed, Err: err.Error()}
}

// startRecipient opens the clone source and sends _recvChunkStart.
func (r *donorRun) startRecipient(ctx context.Context) migrate.Event {
	src, err := NewCloneSource(r.m.opts.Eng.Catalog(), r.req.NS, r.cm.Pattern(), r.chunk.Min, r.chunk.Max)
	if err != nil {
		return failed(err)
	}
	r.src = src
	r.m.mu.Lock()
	r.m.sources[r.session] = src
	r.m.mu.Unlock()
	id, _, err := r.m.opts.State.identity(ctx)
	if err != nil {
		return failed(err)
	}
	from, err := r.m.shardConn(ctx, r.me)
	if err != nil {
		return failed(err)
	}
	indexes := make(bson.A, len(r.indexes))
	for i, s := range r.indexes {
		indexes[i] = s
	}
	cmd := bson.D{{Key: "_recvChunkStart", Value: r.req.NS}, {Key: "sessionId", Value: r.session},
		{Key: "from", Value: from}, {Key: "fromShardName", Value: id.ShardName}, {Key: "toShardName", Value: r.req.ToShard},
		{Key: "min", Value: r.chunk.Min}, {Key: "max", Value: r.chunk.Max},
		{Key: "shardKeyPattern", Value: r.cm.Pattern().Doc()}, {Key: "indexes", Value: indexes}}
	if len(r.options) > 0 {
		cmd = append(cmd, bson.E{Key: "collectionOptions", Value: r.options})
	}
	if _, err := r.m.run(ctx, r.toConn, cmd, true); err != nil {
		return failed(err)
	}
	return r.pollRecipient(ctx)
}

// pollRecipient reads _recvChunkStatus.
func (r *donorRun) pollRecipient(ctx context.Context) migrate.Event {
	reply, err := r.m.run(ctx, r.toConn, bson.D{{Key: "_recvChunkStatus", Value: 1}, {Key: "sessionId", Value: r.session}}, true)
	if err != nil {
		return failed(err)
	}
	state, _ := bsonx.Get(reply, "state")
	switch state {
	case stateFail, stateAborting:
		msg, _ := bsonx.Get(reply, "errmsg")
		return failed(fmt.Errorf("the recipient's clone failed: %v", msg))
	}
	pv, _ := bsonx.Get(reply, "pendingBytes")
	pending, _ := bsonx.AsInt64(pv)
	return migrate.Event{Kind: migrate.RecipientStatus, Cloned: state == stateSteady, PendingBytes: pending}
}

// sectionLease bounds the critical section if the donor never releases it.
const sectionLease = time.Minute

func (r *donorRun) enterSection(ctx context.Context) migrate.Event {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := r.m.opts.State.EnterRangeSection(cctx, r.cm, r.chunk.Min, r.chunk.Max, sectionLease); err != nil {
		return failed(err)
	}
	r.inCrit = time.Now()
	return migrate.Event{Kind: migrate.SectionEntered}
}

func (r *donorRun) recipientCommit(ctx context.Context) migrate.Event {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := r.m.run(cctx, r.toConn, bson.D{{Key: "_recvChunkCommit", Value: 1}, {Key: "sessionId", Value: r.session}}, false); err != nil {
		return failed(err)
	}
	return migrate.Event{Kind: migrate.RecipientCommitted}
}
