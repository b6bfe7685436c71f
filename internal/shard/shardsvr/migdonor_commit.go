package shardsvr

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
	"github.com/relaydb/relaydb/internal/shard/configsvr"
	"github.com/relaydb/relaydb/internal/shard/migrate"
)

// The donor's coordinator document (config.migrationCoordinators, as
// MongoDB's): {_id: session, nss, donorShardId, recipientShardId, range:
// {min, max}, preMigrationChunkVersion, decision?}, written with majority
// before the recipient is started; the decision is persisted before any
// range is deleted; the document is deleted when the migration is over.
const (
	CoordinatorsDB   = "config"
	CoordinatorsColl = "migrationCoordinators"
)

var majorityWC = bson.D{{Key: "w", Value: "majority"}}

func (m *Migrations) persistCoordinator(ctx context.Context, r *donorRun) error {
	doc := bson.D{{Key: "_id", Value: r.session}, {Key: "nss", Value: r.req.NS},
		{Key: "donorShardId", Value: r.me}, {Key: "recipientShardId", Value: r.req.ToShard},
		{Key: "range", Value: bson.D{{Key: "min", Value: r.chunk.Min}, {Key: "max", Value: r.chunk.Max}}},
		{Key: "preMigrationChunkVersion", Value: ShardVersionDoc(r.chunk.Lastmod)},
		{Key: "collectionVersion", Value: ShardVersionDoc(r.cm.CollectionVersion())}}
	return m.writeLocal(ctx, m.opts.Eng.Insert(CoordinatorsDB, CoordinatorsColl, []bson.D{doc}, true, nil))
}

func (m *Migrations) persistDecision(ctx context.Context, session string, d migrate.Decision) error {
	u := bson.D{{Key: "$set", Value: bson.D{{Key: "decision", Value: d.String()}}}}
	return m.writeLocal(ctx, m.opts.Eng.Update(CoordinatorsDB, CoordinatorsColl, []exec.UpdateStmt{{Q: idFilter(session), U: u}}, true, nil, nil))
}

func (m *Migrations) deleteCoordinator(ctx context.Context, session string) error {
	return m.writeLocal(ctx, m.opts.Eng.Delete(CoordinatorsDB, CoordinatorsColl, []exec.DeleteStmt{{Q: idFilter(session), Limit: 1}}, true, nil, nil))
}

// writeLocal checks that this member is primary and waits for res with
// majority.
func (m *Migrations) writeLocal(ctx context.Context, res *exec.WriteResult) error {
	if !m.opts.IsPrimary() {
		return mongoerr.New(mongoerr.NotWritablePrimary, "not primary")
	}
	return m.opts.Store.wait(ctx, res)
}

// commitOnConfig sends _configsvrCommitChunkMigration (majority).
func (r *donorRun) commitOnConfig(ctx context.Context) migrate.Event {
	cmd := bson.D{{Key: "_configsvrCommitChunkMigration", Value: r.req.NS},
		{Key: "fromShard", Value: r.me}, {Key: "toShard", Value: r.req.ToShard},
		{Key: "migratedChunk", Value: bson.D{{Key: "min", Value: r.chunk.Min}, {Key: "max", Value: r.chunk.Max}, {Key: "lastmod", Value: ShardVersionDoc(r.chunk.Lastmod)}}},
		{Key: "fromShardCollectionVersion", Value: ShardVersionDoc(r.cm.CollectionVersion())},
		{Key: "validAfter", Value: bson.Timestamp{T: uint32(time.Now().Unix())}},
		{Key: "writeConcern", Value: majorityWC}}
	return configOutcome(r.runConfig(ctx, cmd), migrate.ConfigCommitted, migrate.ConfigRefused)
}

// fence bumps the range's chunk past the version the commit carried.
func (r *donorRun) fence(ctx context.Context) migrate.Event {
	cmd := bson.D{{Key: "_configsvrEnsureChunkVersionIsGreaterThan", Value: 1},
		{Key: "minKey", Value: r.chunk.Min}, {Key: "maxKey", Value: r.chunk.Max},
		{Key: "version", Value: ShardVersionDoc(r.chunk.Lastmod)},
		{Key: "collectionUUID", Value: r.cm.Collection().UUID}, {Key: "nss", Value: r.req.NS},
		{Key: "writeConcern", Value: majorityWC}}
	ev := configOutcome(r.runConfig(ctx, cmd), migrate.Fenced, migrate.ConfigUnknown)
	if ev.Kind == migrate.ConfigRefused {
		ev.Kind = migrate.ConfigUnknown
	}
	return ev
}

func (r *donorRun) runConfig(ctx context.Context, cmd bson.D) error {
	id, _, err := r.m.opts.State.identity(ctx)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	reply, err := r.m.run(cctx, id.ConfigsvrConnectionString, cmd, false)
	configsvr.Clock.Observe(reply) // later metadata reads see the commit
	if wce, ok := bsonx.Get(reply, "writeConcernError"); ok && err == nil {
		// ok:1 but not majority committed: it may still roll back, so the
		// outcome is unknown (outcomeUnknown), not a commit.
		return mongoerr.New(mongoerr.WriteConcernFailed, "%s: writeConcernError %v", cmd[0].Key, wce)
	}
	return err
}

// configOutcome classifies a config server command's outcome: an answer
// that may not reflect what happened (network, failover, write concern)
// is ConfigUnknown.
func configOutcome(err error, ok, refused migrate.EventKind) migrate.Event {
	if err == nil {
		return migrate.Event{Kind: ok}
	}
	if outcomeUnknown(err) {
		return migrate.Event{Kind: migrate.ConfigUnknown, Err: err.Error()}
	}
	return migrate.Event{Kind: refused, Err: err.Error()}
}

func outcomeUnknown(err error) bool {
	if netclient.IsNetworkError(err) || netclient.NotPrimary(err) || netclient.SteppedDown(err) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var me *mongoerr.Error
	if !errors.As(err, &me) {
		return true
	}
	switch me.Code {
	case mongoerr.HostUnreachable, mongoerr.WriteConcernFailed, mongoerr.ExceededTimeLimit, mongoerr.MaxTimeMSExpired,
		mongoerr.InterruptedDueToReplStateChange, mongoerr.PrimarySteppedDown, mongoerr.ShutdownInProgress, mongoerr.UnknownError:
		return true
	}
	return false
}

// readPlacement reads the range's owner from the config servers.
func (r *donorRun) readPlacement(ctx context.Context) migrate.Event {
	cat, err := r.m.catalog(ctx)
	if err != nil {
		return migrate.Event{Kind: migrate.ConfigUnknown, Err: err.Error()}
	}
	owner, err := cat.ChunkOwner(ctx, r.req.NS, r.chunk.Min)
	if err != nil {
		return migrate.Event{Kind: migrate.ConfigUnknown, Err: err.Error()}
	}
	switch owner {
	case r.req.ToShard:
		return migrate.Event{Kind: migrate.Placement, Owner: "recipient"}
	case r.me:
		return migrate.Event{Kind: migrate.Placement, Owner: "donor"}
	}
	return migrate.Event{Kind: migrate.Placement}
}

// waitForDeleteTimeout bounds a waitForDelete migration's wait for its
// range deletion.
const waitForDeleteTimeout = 10 * time.Minute

// deleteDonorRange schedules the donor's copy for deletion (after
// orphanCleanupDelaySecs, or now and waited for with waitForDelete) and
// forgets the migration.
func (r *donorRun) deleteDonorRange(ctx context.Context) {
	when := "delayed"
	if r.req.WaitForDelete {
		when = "now"
	}
	var err error
	var task RangeTask
	if r.src != nil {
		task, err = r.m.opts.Ranges.ScheduleCounted(ctx, r.req.NS, r.chunk.Min, r.chunk.Max, when, r.src.Stats().Docs)
	} else {
		task, err = r.m.opts.Ranges.Schedule(ctx, r.req.NS, r.chunk.Min, r.chunk.Max, when)
	}
	r.forget(ctx)
	if err != nil {
		r.m.opts.Logger.Warn("migration: scheduling the donor's range deletion", "ns", r.req.NS, "range", r.chunk.Range(), "err", err)
	} else if r.req.WaitForDelete {
		// This range's task only (another, delayed, may be due in 15
		// minutes), bounded as the whole migration is not.
		wctx, cancel := context.WithTimeout(ctx, waitForDeleteTimeout)
		defer cancel()
		if err := r.m.opts.Ranges.WaitTask(wctx, task.ID); err != nil {
			r.m.opts.Logger.Warn("migration: waiting for the donor's range deletion", "ns", r.req.NS, "range", r.chunk.Range(), "err", err)
		}
	}
}

// deleteRecipientRange asks the recipient to stop and delete its clone.
func (r *donorRun) deleteRecipientRange(ctx context.Context) {
	cmd := bson.D{{Key: "_recvChunkAbort", Value: r.req.NS}, {Key: "sessionId", Value: r.session},
		{Key: "min", Value: r.chunk.Min}, {Key: "max", Value: r.chunk.Max}}
	if _, err := r.m.run(ctx, r.toConn, cmd, true); err != nil {
		r.m.opts.Logger.Warn("migration: the recipient's abort", "ns", r.req.NS, "range", r.chunk.Range(), "err", err)
	}
	r.forget(ctx)
}

func (r *donorRun) forget(ctx context.Context) {
	if err := r.m.deleteCoordinator(ctx, r.session); err != nil {
		r.m.opts.Logger.Warn("migration: deleting the coordinator document", "session", r.session, "err", err)
	}
}
