package shardsvr

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/key"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

// memRanges is an in-memory RangeStore: the tasks and one namespace's
// documents.
type memRanges struct {
	mu      sync.Mutex
	tasks   []RangeTask
	docs    []bson.D
	batches []int   // sizes of the batches deleted
	ended   []int64 // numOrphanDocs of each task when deleted
}

func (m *memRanges) AddOrphans(_ context.Context, id bson.Binary, delta int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.tasks {
		if string(m.tasks[i].ID.Data) == string(id.Data) {
			m.tasks[i].NumOrphanDocs += delta
		}
	}
	return nil
}

func (m *memRanges) InsertTask(_ context.Context, t RangeTask) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks = append(m.tasks, t)
	return nil
}

func (m *memRanges) Tasks(context.Context) ([]RangeTask, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]RangeTask(nil), m.tasks...), nil
}

func (m *memRanges) SetProcessing(_ context.Context, id bson.Binary) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.tasks {
		if string(m.tasks[i].ID.Data) == string(id.Data) {
			m.tasks[i].Processing = true
		}
	}
	return nil
}

func (m *memRanges) DeleteTask(_ context.Context, id bson.Binary) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.tasks {
		if string(m.tasks[i].ID.Data) == string(id.Data) {
			m.ended = append(m.ended, m.tasks[i].NumOrphanDocs)
			m.tasks = append(m.tasks[:i], m.tasks[i+1:]...)
			return nil
		}
	}
	return errors.New("no such task")
}

func (m *memRanges) DeleteBatch(_ context.Context, _ string, p key.Pattern, lo, hi bson.D, n int) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	kept, deleted := m.docs[:0], 0
	for _, d := range m.docs {
		if deleted < n && inRange(p, d, lo, hi) {
			deleted++
			continue
		}
		kept = append(kept, d)
	}
	m.docs = kept
	if deleted > 0 {
		m.batches = append(m.batches, deleted)
	}
	return deleted, nil
}

func (m *memRanges) CountRange(_ context.Context, _ string, p key.Pattern, lo, hi bson.D) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for _, d := range m.docs {
		if inRange(p, d, lo, hi) {
			n++
		}
	}
	return n, nil
}

func (m *memRanges) xs() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []int
	for _, d := range m.docs {
		out = append(out, int(d[1].Value.(int32)))
	}
	return out
}

// rangeFixture is a deleter on shard sh1, which owns [0, MaxKey) of db.c
// (sh0 owns [MinKey, 0)), with a fake clock.
type rangeFixture struct {
	store   *memRanges
	rd      *RangeDeleter
	now     time.Time
	slept   []time.Duration
	primary bool
	cm      *routing.ChunkManager
}

func newRangeFixture(t *testing.T, xs ...int) *rangeFixture {
	f := &rangeFixture{store: &memRanges{}, now: time.Unix(1000, 0), primary: true, cm: table(t, "sh1")}
	for i, x := range xs {
		f.store.docs = append(f.store.docs, bson.D{{Key: "_id", Value: i}, {Key: "x", Value: int32(x)}})
	}
	f.rd = NewRangeDeleter(RangeDeleterOptions{
		Store: f.store,
		Owner: func(_ context.Context, ns string) (*routing.ChunkManager, string, error) {
			if ns != "db.c" {
				return nil, "sh1", nil
			}
			return f.cm, "sh1", nil
		},
		IsPrimary: func() bool { return f.primary },
		Now:       func() time.Time { return f.now },
		Sleep: func(_ context.Context, d time.Duration) error {
			f.slept = append(f.slept, d)
			return nil
		},
	})
	return f
}

func xKey(v any) bson.D { return bson.D{{Key: "x", Value: v}} }

func setParam(t *testing.T, name string, v any) {
	t.Helper()
	old, found, err := SetRangeDeleterParameter(name, v)
	if !found || err != nil {
		t.Fatalf("set %s: %v %v", name, found, err)
	}
	t.Cleanup(func() { _, _, _ = SetRangeDeleterParameter(name, old) })
}

func TestRangeTaskDocRoundTrip(t *testing.T) {
	in := RangeTask{ID: newUUID(), NS: "db.c", CollectionUUID: newUUID(), Min: xKey(-10), Max: xKey(0),
		WhenToClean: "delayed", Processing: true, NumOrphanDocs: 7, Scheduled: time.UnixMilli(123456)}
	out, err := ParseRangeTask(in.Doc())
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != in.String() || out.WhenToClean != "delayed" || !out.Processing || out.NumOrphanDocs != 7 ||
		!out.Scheduled.Equal(in.Scheduled) || string(out.ID.Data) != string(in.ID.Data) {
		t.Fatalf("round trip: %+v != %+v", out, in)
	}
	for name, d := range map[string]bson.D{
		"no _id":      {{Key: "nss", Value: "db.c"}},
		"bad range":   append(in.Doc()[:3:3], bson.E{Key: "range", Value: bson.D{{Key: "min", Value: xKey(1)}}}, bson.E{Key: "whenToClean", Value: "now"}),
		"bad when":    append(in.Doc()[:4:4], bson.E{Key: "whenToClean", Value: "later"}),
		"nss not str": {{Key: "_id", Value: in.ID}, {Key: "nss", Value: 1}},
	} {
		if _, err := ParseRangeTask(d); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestRangeDeleterDeletesUnownedRangeInBatches(t *testing.T) {
	setParam(t, "rangeDeleterBatchSize", 2)
	f := newRangeFixture(t, -20, -5, -4, -3, -2, -1, 0, 3)
	ctx := context.Background()
	task, err := f.rd.Schedule(ctx, "db.c", xKey(-10), xKey(0), "now")
	if err != nil {
		t.Fatal(err)
	}
	if task.NumOrphanDocs != 5 || task.CollectionUUID.Subtype != 4 {
		t.Fatalf("task %+v", task)
	}
	if n := f.rd.runDue(ctx); n != 1 {
		t.Fatalf("%d tasks ended", n)
	}
	if got := f.store.xs(); len(got) != 3 || got[0] != -20 || got[1] != 0 || got[2] != 3 {
		t.Fatalf("left %v, want [-20 0 3]", got)
	}
	if len(f.store.batches) != 3 || f.store.batches[0] != 2 || f.store.batches[2] != 1 {
		t.Fatalf("batches %v, want [2 2 1]", f.store.batches)
	}
	if len(f.store.ended) != 1 || f.store.ended[0] != 0 {
		t.Fatalf("numOrphanDocs at the end %v, want [0]", f.store.ended)
	}
	if len(f.slept) != 3 || f.slept[0] != 20*time.Millisecond {
		t.Fatalf("slept %v, want 3 × 20ms", f.slept)
	}
	if tasks, _ := f.store.Tasks(ctx); len(tasks) != 0 {
		t.Fatalf("tasks left: %v", tasks)
	}
}

func TestRangeDeleterNeverDeletesOwnedRange(t *testing.T) {
	f := newRangeFixture(t, -5, 5, 7)
	ctx := context.Background()
	for _, r := range [][2]any{{5, 10}, {-10, 1}} { // inside, overlapping sh1's [0, MaxKey)
		if _, err := f.rd.Schedule(ctx, "db.c", xKey(r[0]), xKey(r[1]), "now"); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.rd.runDue(ctx); n != 2 {
		t.Fatalf("%d tasks ended, want 2 dropped", n)
	}
	if got := f.store.xs(); len(got) != 3 {
		t.Fatalf("left %v, want all three", got)
	}
}

func TestRangeDeleterDelayedAndPrimaryOnly(t *testing.T) {
	f := newRangeFixture(t, -5)
	ctx := context.Background()
	if _, err := f.rd.Schedule(ctx, "db.c", xKey(-10), xKey(0), "delayed"); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(899 * time.Second)
	if n := f.rd.runDue(ctx); n != 0 || len(f.store.xs()) != 1 {
		t.Fatalf("ran before orphanCleanupDelaySecs: %d", n)
	}
	f.now = f.now.Add(2 * time.Second)
	f.primary = false
	if n := f.rd.runDue(ctx); n != 0 || len(f.store.xs()) != 1 {
		t.Fatalf("ran on a secondary: %d", n)
	}
	f.primary = true
	if n := f.rd.runDue(ctx); n != 1 || len(f.store.xs()) != 0 {
		t.Fatalf("after the delay: %d ended, left %v", n, f.store.xs())
	}
}

func TestRangeDeleterScheduleRefusesBadInput(t *testing.T) {
	f := newRangeFixture(t)
	ctx := context.Background()
	for name, c := range map[string]struct {
		ns     string
		lo, hi bson.D
		when   string
		code   mongoerr.Code
	}{
		"unsharded":   {"db.u", xKey(1), xKey(2), "now", mongoerr.NamespaceNotSharded},
		"wrong field": {"db.c", bson.D{{Key: "y", Value: 1}}, bson.D{{Key: "y", Value: 2}}, "now", mongoerr.BadValue},
		"empty range": {"db.c", xKey(2), xKey(2), "now", mongoerr.BadValue},
		"bad when":    {"db.c", xKey(1), xKey(2), "soon", mongoerr.BadValue},
	} {
		_, err := f.rd.Schedule(ctx, c.ns, c.lo, c.hi, c.when)
		var me *mongoerr.Error
		if !errors.As(err, &me) || me.Code != c.code {
			t.Errorf("%s: %v, want code %d", name, err, c.code)
		}
	}
	if tasks, _ := f.store.Tasks(ctx); len(tasks) != 0 {
		t.Fatalf("persisted %v", tasks)
	}
}

func TestRangeDeleterWaitEndsWithTask(t *testing.T) {
	f := newRangeFixture(t, -1)
	ctx := context.Background()
	if _, err := f.rd.Schedule(ctx, "db.c", xKey(-10), xKey(0), "delayed"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := f.rd.Wait(short, "db.c"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait with a pending task: %v", err)
	}
	if err := f.rd.Wait(ctx, "db.other"); err != nil {
		t.Fatalf("wait without a task: %v", err)
	}
	f.now = f.now.Add(time.Hour)
	waited := make(chan error, 1)
	go func() { waited <- f.rd.Wait(ctx, "db.c") }()
	f.rd.runDue(ctx)
	select {
	case err := <-waited:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wait did not end with the task")
	}
}

func TestRangeDeleterParameters(t *testing.T) {
	if _, found, _ := SetRangeDeleterParameter("nope", 1); found {
		t.Fatal("unknown parameter found")
	}
	for _, bad := range []any{0, -1, "x", int64(1) << 40} {
		if _, _, err := SetRangeDeleterParameter("rangeDeleterBatchSize", bad); err == nil {
			t.Errorf("batch size %v accepted", bad)
		}
	}
	setParam(t, "orphanCleanupDelaySecs", 0)
	if cleanupDelay() != 0 {
		t.Fatal("delay not set")
	}
	got := RangeDeleterParameters()
	if len(got) != 3 || got[0].Value != int32(2147483647) || got[1].Value != int32(20) {
		t.Fatalf("parameters %v", got)
	}
	if batchLimit() != maxBatchIDs {
		t.Fatalf("batch limit %d, want the cap %d", batchLimit(), maxBatchIDs)
	}
}
