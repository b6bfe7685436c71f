package experiment

import (
	"math"
	"reflect"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func member(name, state, src string, t, i uint32) MemberState {
	return MemberState{Name: name, Host: name + ":1", State: state, SyncSource: src, Optime: bson.Timestamp{T: t, I: i}}
}

func TestDepths(t *testing.T) {
	st := ReplStatus{Members: []MemberState{
		member("m3", "SECONDARY", "m2:1", 9, 1), // listed before its source
		member("m0", "PRIMARY", "", 9, 9),
		member("m1", "SECONDARY", "m0:1", 9, 8),
		member("m2", "SECONDARY", "m1:1", 9, 5),
		member("m4", "SECONDARY", "", 9, 5),     // no source: absent
		member("m5", "SECONDARY", "m6:1", 9, 5), // cycle with m6: absent
		member("m6", "SECONDARY", "m5:1", 9, 5),
		member("m7", "SECONDARY", "gone:1", 9, 5), // unknown source: absent
	}}
	want := map[string]int{"m0": 0, "m1": 1, "m2": 2, "m3": 3}
	if got := Depths(st); !reflect.DeepEqual(got, want) {
		t.Fatalf("Depths = %v, want %v", got, want)
	}
}

func TestLagByDepth(t *testing.T) {
	poll := func(p, a, b, c bson.Timestamp) ReplStatus {
		return ReplStatus{Members: []MemberState{
			{Name: "m0", Host: "m0:1", State: "PRIMARY", Optime: p},
			{Name: "m1", Host: "m1:1", State: "SECONDARY", SyncSource: "m0:1", Optime: a},
			{Name: "m2", Host: "m2:1", State: "SECONDARY", SyncSource: "m0:1", Optime: b},
			{Name: "m3", Host: "m3:1", State: "SECONDARY", SyncSource: "m1:1", Optime: c},
		}}
	}
	ts := func(t, i uint32) bson.Timestamp { return bson.Timestamp{T: t, I: i} }
	var run1, run2 LagSummary
	run1.observe(poll(ts(5, 10), ts(5, 8), ts(5, 10), ts(5, 4)), nil)
	run1.observe(poll(ts(6, 2), ts(6, 0), ts(5, 90), ts(5, 80)), nil) // m2, m3 in the previous second
	run2.observe(poll(ts(7, 20), ts(7, 16), ts(7, 20), ts(7, 10)), nil)
	want1 := []DepthLag{
		{Depth: 1, Samples: 3, MeanBehind: 4.0 / 3, MaxBehind: 2, Straddled: 1},
		{Depth: 2, Samples: 1, MeanBehind: 6, MaxBehind: 6, Straddled: 1},
	}
	if !sameDepths(run1.ByDepth, want1) {
		t.Fatalf("run 1 by depth = %+v, want %+v", run1.ByDepth, want1)
	}
	got := mergeDepths(run1.ByDepth, run2.ByDepth)
	want := []DepthLag{
		{Depth: 1, Samples: 5, MeanBehind: 8.0 / 5, MaxBehind: 4, Straddled: 1},
		{Depth: 2, Samples: 2, MeanBehind: 8, MaxBehind: 10, Straddled: 1},
	}
	if !sameDepths(got, want) {
		t.Fatalf("merged = %+v, want %+v", got, want)
	}
	if s := depthCell(got); s != "1: 1.6 (4); 2: 8.0 (10)" {
		t.Fatalf("depthCell = %q", s)
	}
}

// sameDepths compares with means rounded to 1e-9.
func sameDepths(a, b []DepthLag) bool {
	round := func(ds []DepthLag) []DepthLag {
		out := append([]DepthLag(nil), ds...)
		for i := range out {
			out[i].MeanBehind = math.Round(out[i].MeanBehind*1e9) / 1e9
		}
		return out
	}
	return reflect.DeepEqual(round(a), round(b))
}
