package shardsvr

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// The range deleter (MongoDB's RangeDeleterService) deletes the documents
// of a range a shard no longer owns: the donor's copy after a migration
// committed, the recipient's clone after one aborted, orphans found by
// hand. Invariants:
//   - A task is persisted (config.rangeDeletions, majority) before it is
//     acknowledged, and its document is deleted only after the range is
//     empty or the task is given up, so a restart or a failover resumes
//     it on the next primary.
//   - Only a primary deletes; the loop checks before each batch.
//   - Before each batch the routing table is reread from the config
//     servers; if any chunk of this shard overlaps the range, nothing
//     more is deleted and the task is dropped: a range the shard owns is
//     never deleted.
//   - Each batch is at most min(rangeDeleterBatchSize, maxBatchIDs)
//     documents, deleted in one catalog batch (index entries and oplog
//     entries follow) and waited for with majority, followed by a pause
//     of rangeDeleterBatchDelayMS; numOrphanDocs (counted when the task
//     is scheduled) goes down by each batch's count.
//
// The deletes' oplog entries are marked fromMigrate
// (catalog.DeleteMigrated): change streams through a router skip them.
// TODO(#14): a step-down between the primary check and a batch's delete is not
// fenced (the write fails or rolls back with the term).
// TODO(#14): the ownership check and the batch's delete are not atomic
// with a migration's commit either. Seen once in CI (2026-11-28,
// tests/sharding TestShardedLinearizable under the full suite's load, not
// reproduced in 3 runs alone): after kill -9 of sh1's primary, a migration
// of [6, MaxKey) that had committed to sh1 found no documents there (its
// next move cloned 0), and the final read of key 6 found nothing. The
// likely path is a recipient's leftover task, resumed by the new primary,
// passing the check just before the range came back to this shard.

// RangeStore persists the tasks and deletes the documents; EngineRangeStore
// is the real one.
type RangeStore interface {
	InsertTask(ctx context.Context, t RangeTask) error
	Tasks(ctx context.Context) ([]RangeTask, error)
	SetProcessing(ctx context.Context, id bson.Binary) error
	// AddOrphans adds delta to the task's numOrphanDocs.
	AddOrphans(ctx context.Context, id bson.Binary, delta int64) error
	DeleteTask(ctx context.Context, id bson.Binary) error
	// DeleteBatch deletes at most n documents of ns whose shard key
	// (p, hashed fields hashed) is in [lo, hi), returning how many.
	DeleteBatch(ctx context.Context, ns string, p key.Pattern, lo, hi bson.D, n int) (int, error)
	// CountRange counts the documents DeleteBatch would find.
	CountRange(ctx context.Context, ns string, p key.Pattern, lo, hi bson.D) (int64, error)
}

// RangeDeleterOptions configure a RangeDeleter.
type RangeDeleterOptions struct {
	Store RangeStore
	// Owner reads ns's routing table fresh from the config servers and
	// names this shard; a nil table means ns is not sharded.
	Owner func(ctx context.Context, ns string) (*routing.ChunkManager, string, error)
	// IsPrimary reports whether this member accepts writes.
	IsPrimary func() bool
	// Now and Sleep are the clock (fakes in tests).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Poll is how often the loop looks for due tasks (default 1 s).
	Poll   time.Duration
	Logger *slog.Logger
}

// RangeDeleter runs the tasks of config.rangeDeletions. It is safe for
// concurrent use.
type RangeDeleter struct {
	opts RangeDeleterOptions
	wake chan struct{} // a task was scheduled
	mu   sync.Mutex
	done chan struct{} // closed and replaced when a task ends
}

// NewRangeDeleter returns a deleter; Run starts its loop.
func NewRangeDeleter(o RangeDeleterOptions) *RangeDeleter {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &RangeDeleter{opts: o, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Schedule persists a task for [lo, hi) of ns (whenToClean "now" or
// "delayed") with majority and wakes the loop. ns must be sharded and the
// bounds shard keys of its pattern with lo < hi; whether this shard owns
// the range is checked when the task runs.
func (r *RangeDeleter) Schedule(ctx context.Context, ns string, lo, hi bson.D, when string) (RangeTask, error) {
	return r.schedule(ctx, ns, lo, hi, when, -1)
}

// ScheduleCounted is Schedule for a caller that knows how many documents
// the range holds (a migration's donor: what it cloned), so the range is
// not counted again.
func (r *RangeDeleter) ScheduleCounted(ctx context.Context, ns string, lo, hi bson.D, when string, n int64) (RangeTask, error) {
	return r.schedule(ctx, ns, lo, hi, when, n)
}

// schedule persists a task; n < 0 counts the range's documents.
func (r *RangeDeleter) schedule(ctx context.Context, ns string, lo, hi bson.D, when string, n int64) (RangeTask, error) {
	if err := checkWhen(when); err != nil {
		return RangeTask{}, err
	}
	cm, _, err := r.opts.Owner(ctx, ns)
	if err != nil {
		return RangeTask{}, err
	}
	if cm == nil {
		return RangeTask{}, mongoerr.New(mongoerr.NamespaceNotSharded, "%s is not sharded", ns)
	}
	if err := checkBounds(cm.Pattern(), lo, hi); err != nil {
		return RangeTask{}, err
	}
	if n < 0 {
		if n, err = r.opts.Store.CountRange(ctx, ns, cm.Pattern(), lo, hi); err != nil {
			return RangeTask{}, err
		}
	}
	t := RangeTask{ID: newUUID(), NS: ns, CollectionUUID: cm.Collection().UUID, Min: lo, Max: hi,
		WhenToClean: when, NumOrphanDocs: n, Scheduled: r.opts.Now()}
	if err := r.opts.Store.InsertTask(ctx, t); err != nil {
		return RangeTask{}, fmt.Errorf("range deleter: persist task %v: %w", t, err)
	}
	select {
	case r.wake <- struct{}{}:
	default:
	}
	return t, nil
}

// checkBounds wants lo and hi to have the pattern's fields in order and
// lo < hi.
func checkBounds(p key.Pattern, lo, hi bson.D) error {
	fs := p.Fields()
	ok := len(lo) == len(fs) && len(hi) == len(fs)
	for i := 0; ok && i < len(fs); i++ {
		ok = lo[i].Key == fs[i].Path && hi[i].Key == fs[i].Path
	}
	if !ok {
		return mongoerr.New(mongoerr.BadValue, "range bounds must be shard keys of %v", p)
	}
	if key.Compare(lo, hi) >= 0 {
		return mongoerr.New(mongoerr.BadValue, "range min %v must be below max %v", lo, hi)
	}
	return nil
}

// Wait returns when no task for ns remains, or ctx's error.
func (r *RangeDeleter) Wait(ctx context.Context, ns string) error {
	return r.waitGone(ctx, func(t RangeTask) bool { return t.NS == ns })
}

// WaitTask returns when the task id is gone (done or given up), or ctx's
// error.
func (r *RangeDeleter) WaitTask(ctx context.Context, id bson.Binary) error {
	return r.waitGone(ctx, func(t RangeTask) bool { return bytes.Equal(t.ID.Data, id.Data) })
}

// waitGone returns when no task matches, or ctx's error.
func (r *RangeDeleter) waitGone(ctx context.Context, match func(RangeTask) bool) error {
	for {
		r.mu.Lock()
		done := r.done
		r.mu.Unlock()
		tasks, err := r.opts.Store.Tasks(ctx)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(tasks, match) {
			return nil
		}
		select {
		case <-done:
		case <-time.After(r.opts.Poll): // a task run by another primary
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (r *RangeDeleter) taskEnded() {
	r.mu.Lock()
	close(r.done)
	r.done = make(chan struct{})
	r.mu.Unlock()
}

// Run is the loop: while ctx lasts, each poll (or Schedule) a primary
// runs its due tasks oldest first. A task that fails is retried on the
// next poll.
func (r *RangeDeleter) Run(ctx context.Context) {
	for ctx.Err() == nil {
		if r.opts.IsPrimary() {
			r.runDue(ctx)
		}
		t := time.NewTimer(r.opts.Poll)
		select {
		case <-ctx.Done():
		case <-r.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// runDue runs the tasks due now; it returns how many ended.
func (r *RangeDeleter) runDue(ctx context.Context) int {
	tasks, err := r.opts.Store.Tasks(ctx)
	if err != nil {
		r.opts.Logger.Warn("range deleter: read tasks", "err", err)
		return 0
	}
	slices.SortStableFunc(tasks, func(a, b RangeTask) int { return a.Scheduled.Compare(b.Scheduled) })
	ended := 0
	for _, t := range tasks {
		if ctx.Err() != nil || !r.opts.IsPrimary() {
			break
		}
		if t.WhenToClean == "delayed" && r.opts.Now().Before(t.Scheduled.Add(cleanupDelay())) {
			continue
		}
		if err := r.runTask(ctx, t); err != nil {
			r.opts.Logger.Warn("range deleter: task failed, will retry", "task", t.String(), "err", err)
			continue
		}
		ended++
		r.taskEnded()
	}
	return ended
}

// errNotPrimary stops a task when this member steps down.
var errNotPrimary = errors.New("not primary")

// runTask deletes t's range batch by batch and then t itself.
func (r *RangeDeleter) runTask(ctx context.Context, t RangeTask) error {
	if !t.Processing {
		if err := r.opts.Store.SetProcessing(ctx, t.ID); err != nil {
			return err
		}
	}
	deleted := 0
	var cur bson.D // where the next batch starts (deleteBatch)
	for {
		if !r.opts.IsPrimary() {
			return errNotPrimary
		}
		p, reason, err := r.check(ctx, t)
		if err != nil {
			return err
		}
		if reason != "" {
			r.opts.Logger.Info("range deleter: task dropped", "task", t.String(), "reason", reason)
			break
		}
		n, done, err := r.deleteBatch(ctx, t, p, &cur)
		if err != nil {
			return fmt.Errorf("delete batch: %w", err)
		}
		if done {
			break
		}
		if n == 0 {
			continue // the last pass from t.Min
		}
		deleted += n
		if err := r.opts.Store.AddOrphans(ctx, t.ID, -int64(n)); err != nil {
			return err
		}
		if err := r.opts.Sleep(ctx, batchDelay()); err != nil {
			return err
		}
	}
	r.opts.Logger.Info("range deleter: task ended", "task", t.String(), "deleted", deleted)
	return r.opts.Store.DeleteTask(ctx, t.ID)
}

// check rereads t's routing table: it returns the shard key pattern to
// delete by, or why the task is to be dropped without deleting (the
// collection is gone or recreated, or this shard owns part of the range).
func (r *RangeDeleter) check(ctx context.Context, t RangeTask) (key.Pattern, string, error) {
	cm, shard, err := r.opts.Owner(ctx, t.NS)
	if err != nil {
		return key.Pattern{}, "", fmt.Errorf("routing table of %s: %w", t.NS, err)
	}
	if cm == nil {
		return key.Pattern{}, "collection not sharded", nil
	}
	if u := cm.Collection().UUID; len(t.CollectionUUID.Data) > 0 && !slices.Equal(u.Data, t.CollectionUUID.Data) {
		return key.Pattern{}, "collection uuid changed", nil
	}
	for _, c := range cm.ChunksOn(shard) {
		if key.Compare(c.Min, t.Max) < 0 && key.Compare(t.Min, c.Max) < 0 {
			return key.Pattern{}, "range overlaps chunk " + c.Range() + " owned by " + shard, nil
		}
	}
	return cm.Pattern(), "", nil
}

func newUUID() bson.Binary {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return bson.Binary{Subtype: 4, Data: b[:]}
}
