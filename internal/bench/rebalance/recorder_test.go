package rebalance

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bench"
)

// fakeDB answers every operation with st.
type fakeDB struct{ st bench.Status }

func (f fakeDB) Read(context.Context, string, string, []string) bench.Status      { return f.st }
func (f fakeDB) Scan(context.Context, string, string, int, []string) bench.Status { return f.st }
func (f fakeDB) Update(context.Context, string, string, bson.D) bench.Status      { return f.st }
func (f fakeDB) Insert(context.Context, string, string, bson.D) bench.Status      { return f.st }
func (f fakeDB) Flush(context.Context) bench.Status                               { return bench.StatusOK }

func TestRecDB(t *testing.T) {
	rec := &recorder{t0: time.Now()}
	ok := &recDB{r: rec, inner: fakeDB{bench.StatusOK}}
	bad := &recDB{r: rec, inner: fakeDB{bench.StatusNotFound}}
	rec.dbs = []*recDB{ok, bad}
	ctx := context.Background()
	ok.Read(ctx, Table, "k", nil)
	ok.Update(ctx, Table, "k", nil)
	ok.Insert(ctx, Table, "k", nil)
	bad.Read(ctx, Table, "k", nil) // not found: a failure (every key was loaded)
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	bad.Update(stopped, Table, "k", nil) // cut short by the run's end: not recorded
	ops, dropped := rec.ops()
	want := []struct {
		kind uint8
		ok   bool
	}{{KindRead, true}, {KindUpdate, true}, {KindOther, true}, {KindRead, false}}
	if len(ops) != len(want) || dropped != 0 {
		t.Fatalf("ops %+v dropped %d", ops, dropped)
	}
	for i, w := range want {
		if ops[i].Kind != w.kind || ops[i].OK != w.ok || ops[i].At < 0 {
			t.Errorf("op %d: %+v, want %+v", i, ops[i], w)
		}
	}
	full := &recDB{r: rec, inner: fakeDB{bench.StatusOK}, log: make([]Op, maxOpsPerWorker)}
	full.Read(ctx, Table, "k", nil)
	if full.dropped != 1 || len(full.log) != maxOpsPerWorker {
		t.Errorf("a full log: dropped %d, len %d", full.dropped, len(full.log))
	}
}
