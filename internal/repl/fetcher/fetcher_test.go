package fetcher

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/oplog"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// collect runs f until want entries arrived (then cancels) or it returns.
func collect(t *testing.T, f *Fetcher, src Source, after topology.OpTime, want int, during func()) ([]*oplog.Entry, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []*oplog.Entry
	batches := 0
	err := f.Run(ctx, src, after, func(b []*oplog.Entry) error {
		if len(b) == 0 {
			t.Fatal("empty batch emitted")
		}
		if batches++; batches == 1 && during != nil {
			go during()
		}
		got = append(got, b...)
		if len(got) >= want {
			cancel()
		}
		return nil
	})
	if errors.Is(err, context.Canceled) && len(got) >= want {
		err = nil
	}
	return got, err
}

func opTimes(es []*oplog.Entry) []topology.OpTime {
	out := make([]topology.OpTime, len(es))
	for i, e := range es {
		out[i] = topology.OpTime{TS: e.TS, Term: e.Term}
	}
	return out
}

func sourceEntries(t *testing.T, s *fakeSource) []*oplog.Entry {
	t.Helper()
	es, err := s.cat.Oplog().Read(bson.Timestamp{}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func sameOpTimes(t *testing.T, got, want []*oplog.Entry) {
	t.Helper()
	g, w := opTimes(got), opTimes(want)
	if len(g) != len(w) {
		t.Fatalf("got %d entries, want %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("entry %d: got %v want %v", i, g[i], w[i])
		}
	}
}

func TestFetchFromStartAndTail(t *testing.T) {
	tests := []struct {
		name  string
		batch int32
		dead  bool
	}{{"one find", 1000, false}, {"small batches", 3, false}, {"source closes cursors", 4, true}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := newFakeSource(t)
			src.deadCursors = tc.dead
			src.write(t, 10)
			f := &Fetcher{BatchSize: tc.batch, MaxAwait: 20 * time.Millisecond}
			// 1 create + 10 inserts now, 5 more while tailing.
			got, err := collect(t, f, src, topology.OpTime{}, 16, func() { src.write(t, 5) })
			if err != nil {
				t.Fatal(err)
			}
			sameOpTimes(t, got, sourceEntries(t, src))
			if got[1].Op != "i" || got[1].NS != "app.c" || len(got[1].O) != 1 {
				t.Fatalf("decoded entry %+v", got[1])
			}
		})
	}
}

func TestFetchResumesAfterOurLastEntry(t *testing.T) {
	src := newFakeSource(t)
	src.write(t, 8)
	all := sourceEntries(t, src)
	after := topology.OpTime{TS: all[4].TS, Term: all[4].Term}
	got, err := collect(t, &Fetcher{MaxAwait: 20 * time.Millisecond}, src, after, len(all)-5, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameOpTimes(t, got, all[5:])
}

func TestFetchDetectsDivergenceStalenessAndBehind(t *testing.T) {
	src := newFakeSource(t)
	src.write(t, 8)
	all := sourceEntries(t, src)
	between := bson.Timestamp{T: all[3].TS.T, I: all[3].TS.I + 1} // entries are a second apart
	if !between.Before(all[4].TS) {
		t.Fatal("fixture: no gap between entries")
	}
	last := all[len(all)-1].TS
	tests := []struct {
		name   string
		after  topology.OpTime
		oldest bson.Timestamp
		want   error
	}{
		{"same ts other term", topology.OpTime{TS: all[3].TS, Term: 5}, bson.Timestamp{}, ErrOplogDiverged},
		{"ts the source lacks", topology.OpTime{TS: between, Term: 1}, bson.Timestamp{}, ErrOplogDiverged},
		{"older than the source's oldest", topology.OpTime{TS: bson.Timestamp{T: all[0].TS.T - 1, I: 9}, Term: 1}, bson.Timestamp{}, ErrTooStale},
		{"source rolled over", topology.OpTime{TS: all[1].TS}, all[4].TS, ErrTooStale},
		{"source behind", topology.OpTime{TS: bson.Timestamp{T: last.T + 10, I: 1}}, bson.Timestamp{}, ErrSourceBehind},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src.oldest = tc.oldest
			emitted := 0
			err := (&Fetcher{MaxAwait: 20 * time.Millisecond}).Run(context.Background(), src, tc.after,
				func(b []*oplog.Entry) error { emitted += len(b); return nil })
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if emitted != 0 {
				t.Fatalf("emitted %d entries before failing", emitted)
			}
		})
	}
}

func TestFetchReturnsSourceAndEmitErrors(t *testing.T) {
	src := newFakeSource(t)
	src.write(t, 3)
	boom := errors.New("connection reset")
	src.getMoreErr = boom
	err := Run(context.Background(), src, topology.OpTime{}, func([]*oplog.Entry) error { return nil })
	if !errors.Is(err, boom) {
		t.Fatalf("source error: %v", err)
	}
	src.getMoreErr = nil
	stop := errors.New("applier full")
	err = Run(context.Background(), src, topology.OpTime{}, func([]*oplog.Entry) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("emit error: %v", err)
	}
	if cmds := src.cmds; cmds[len(cmds)-1] != "killCursors" {
		t.Fatalf("cursor not killed: %v", cmds)
	}
}

func TestFetchRejectsOutOfOrderSource(t *testing.T) {
	e1 := bson.D{{Key: "ts", Value: bson.Timestamp{T: 9, I: 2}}, {Key: "t", Value: int64(1)}, {Key: "op", Value: "n"}, {Key: "ns", Value: ""}, {Key: "o", Value: bson.D{}}}
	e0 := bson.D{{Key: "ts", Value: bson.Timestamp{T: 9, I: 1}}, {Key: "t", Value: int64(1)}, {Key: "op", Value: "n"}, {Key: "ns", Value: ""}, {Key: "o", Value: bson.D{}}}
	src := sourceFunc(func(context.Context, string, bson.D) (bson.D, error) {
		return reply(0, "firstBatch", bson.A{e1, e0}), nil
	})
	err := Run(context.Background(), src, topology.OpTime{}, func([]*oplog.Entry) error { return nil })
	if err == nil {
		t.Fatal("out-of-order batch accepted")
	}
}

type sourceFunc func(context.Context, string, bson.D) (bson.D, error)

func (f sourceFunc) Run(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	return f(ctx, db, cmd)
}

// TestFetchDivergedWhenSourceHasALaterTerm: a source with no entry at or
// after our last entry's ts is behind us only if its newest entry is
// older than ours by OpTime; a newer term with smaller timestamps (a
// primary elected without our last entries) means we diverged.
func TestFetchDivergedWhenSourceHasALaterTerm(t *testing.T) {
	src := newFakeSource(t)
	src.write(t, 3)
	src.cat.Oplog().SetTerm(2)
	src.write(t, 2)
	all := sourceEntries(t, src)
	newest := all[len(all)-1]
	for _, tc := range []struct {
		name  string
		after topology.OpTime
		want  error
	}{
		{"later ts, older term", topology.OpTime{TS: bson.Timestamp{T: newest.TS.T + 10, I: 1}, Term: 1}, ErrOplogDiverged},
		{"later ts, same term", topology.OpTime{TS: bson.Timestamp{T: newest.TS.T + 10, I: 1}, Term: 2}, ErrSourceBehind},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := (&Fetcher{MaxAwait: 20 * time.Millisecond, BehindWait: time.Millisecond}).Run(context.Background(), src, tc.after,
				func([]*oplog.Entry) error { t.Fatal("emitted entries"); return nil })
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}
