package oplog

import (
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAllocatorNeverBelowClusterTime: once the node has seen a cluster
// time (gossiped $clusterTime), every timestamp Reserve allocates is after
// it, whatever the wall clock says; an older cluster time changes nothing;
// one too far ahead of the wall clock is refused and changes nothing.
func TestAllocatorNeverBelowClusterTime(t *testing.T) {
	f := newFixture(t, nil, 0) // wall clock frozen at second 1000
	defer f.eng.Close()
	first := f.write(t, nil)
	if first != (bson.Timestamp{T: 1000, I: 1}) {
		t.Fatalf("first ts %v", first)
	}

	// Same second, a higher increment (another set's 200 writes).
	floor := bson.Timestamp{T: 1000, I: 200}
	if err := f.log.AdvanceClusterTime(floor, MaxClockDriftSecs); err != nil {
		t.Fatal(err)
	}
	if ct := f.log.ClusterTime(); ct != floor {
		t.Fatalf("ClusterTime %v, want %v", ct, floor)
	}
	if got := f.write(t, nil); got != (bson.Timestamp{T: 1000, I: 201}) {
		t.Fatalf("ts after gossip of %v: %v", floor, got)
	}

	// Seconds ahead of the wall clock, within the drift.
	ahead := bson.Timestamp{T: 1030, I: 5}
	if err := f.log.AdvanceClusterTime(ahead, MaxClockDriftSecs); err != nil {
		t.Fatal(err)
	}
	prev := ahead
	for i := 0; i < 5; i++ {
		got := f.write(t, nil)
		if !got.After(prev) {
			t.Fatalf("write %d at %v, not after %v", i, got, prev)
		}
		prev = got
	}
	if prev != (bson.Timestamp{T: 1030, I: 10}) {
		t.Fatalf("last ts %v", prev)
	}

	// An older cluster time does not move the clock back.
	if err := f.log.AdvanceClusterTime(bson.Timestamp{T: 1001, I: 1}, MaxClockDriftSecs); err != nil {
		t.Fatal(err)
	}
	if got := f.write(t, nil); got != (bson.Timestamp{T: 1030, I: 11}) {
		t.Fatalf("ts after an older gossip: %v", got)
	}

	// The wall clock passing the floor takes over again.
	f.now = time.Unix(1040, 0)
	if got := f.write(t, nil); got != (bson.Timestamp{T: 1040, I: 1}) {
		t.Fatalf("ts once the wall clock passed the floor: %v", got)
	}

	// Too far ahead: refused, clock unchanged.
	far := bson.Timestamp{T: 1040 + MaxClockDriftSecs + 1, I: 1}
	var de *ClockDriftError
	if err := f.log.AdvanceClusterTime(far, MaxClockDriftSecs); !errors.As(err, &de) || de.WallSecs != 1040 || de.New != far {
		t.Fatalf("AdvanceClusterTime(%v) = %v, want a ClockDriftError at wall 1040", far, err)
	}
	if err := f.log.AdvanceClusterTime(bson.Timestamp{T: 1040 + MaxClockDriftSecs, I: 9}, MaxClockDriftSecs); err != nil {
		t.Fatalf("exactly the acceptable drift: %v", err)
	}
	if got := f.write(t, nil); got != (bson.Timestamp{T: 1040 + MaxClockDriftSecs, I: 10}) {
		t.Fatalf("ts after the largest acceptable gossip: %v", got)
	}
}

// TestClusterTimeFloorAndReserveAt: a secondary's floor (it sees gossip
// too) does not refuse its sync source's entries, which ReserveAt writes
// at the source's timestamps; once it allocates itself (a new primary),
// it allocates after the floor, also after TruncateAfter (rollback).
func TestClusterTimeFloorAndReserveAt(t *testing.T) {
	f := newFixture(t, nil, 0)
	defer f.eng.Close()
	floor := bson.Timestamp{T: 1050, I: 1}
	if err := f.log.AdvanceClusterTime(floor, MaxClockDriftSecs); err != nil {
		t.Fatal(err)
	}
	s, err := f.log.ReserveAt(bson.Timestamp{T: 1000, I: 3}, 1)
	if err != nil {
		t.Fatalf("ReserveAt below the cluster time: %v", err)
	}
	b := f.eng.NewBatch()
	if err := f.log.Append(b, s, &Entry{Op: OpNoop, O: bson.D{}}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.Commit(b, false); err != nil {
		t.Fatal(err)
	}
	f.log.Commit(s)
	if got := f.write(t, nil); got != (bson.Timestamp{T: 1050, I: 2}) {
		t.Fatalf("own allocation after the floor: %v", got)
	}
	if _, err := f.log.TruncateAfter(bson.Timestamp{T: 1000, I: 3}); err != nil {
		t.Fatal(err)
	}
	if got := f.write(t, nil); !got.After(floor) {
		t.Fatalf("after a rollback the allocator went below the cluster time %v: %v", floor, got)
	}
}
