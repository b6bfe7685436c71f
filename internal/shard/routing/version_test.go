package routing

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestChunkVersionLastmod(t *testing.T) {
	v := version(7, 3)
	if got := v.Lastmod(); got != (bson.Timestamp{T: 7, I: 3}) {
		t.Errorf("Lastmod = %v, want Timestamp(7, 3)", got)
	}
	if back := VersionFromLastmod(testEpoch, testTS, v.Lastmod()); back != v {
		t.Errorf("VersionFromLastmod(Lastmod) = %v, want %v", back, v)
	}
	if got := v.String(); got != "7|3||650102030405060708090a0b||Timestamp(1700000000, 1)" {
		t.Errorf("String = %s", got)
	}
}

func TestChunkVersionOrder(t *testing.T) {
	newer := ChunkVersion{Epoch: bson.ObjectID{1}, Timestamp: bson.Timestamp{T: testTS.T + 1}, Major: 1}
	ordered := []ChunkVersion{
		{Epoch: testEpoch, Timestamp: testTS},
		version(1, 0), version(1, 1), version(1, 9), version(2, 0), version(10, 0),
		newer,
	}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := ordered[i].Compare(ordered[j]); got != want {
				t.Errorf("%s.Compare(%s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
	if version(1, 0).SameCollection(newer) || !version(1, 0).SameCollection(version(5, 5)) {
		t.Error("SameCollection compares epoch and timestamp only")
	}
	if version(0, 0).IsSet() || !version(0, 1).IsSet() {
		t.Error("IsSet is major.minor != 0.0")
	}
	if got := version(3, 4).IncMinor(); got != version(3, 5) {
		t.Errorf("IncMinor = %s", got)
	}
	if got := version(3, 4).IncMajor(); got != version(4, 0) {
		t.Errorf("IncMajor = %s", got)
	}
}
