package shardsvr

import (
	"time"

	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/shard/routing"
)

var (
	epoch = bson.ObjectID{0x65, 0x5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}
	ts    = bson.Timestamp{T: 1700000000, I: 1}
)

func ver(major, minor uint32) routing.ChunkVersion {
	return routing.ChunkVersion{Epoch: epoch, Timestamp: ts, Major: major, Minor: minor}
}

func TestParseShardVersion(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want routing.ChunkVersion
		code mongoerr.Code
	}{
		{"7.0 document", bson.D{{Key: "e", Value: epoch}, {Key: "t", Value: ts}, {Key: "v", Value: bson.Timestamp{T: 2, I: 3}}}, ver(2, 3), 0},
		{"7.0 with index version", bson.D{{Key: "e", Value: epoch}, {Key: "t", Value: ts}, {Key: "v", Value: bson.Timestamp{T: 2, I: 3}}, {Key: "i", Value: bson.Timestamp{}}}, ver(2, 3), 0},
		{"UNSHARDED", ShardVersionDoc(Unsharded), Unsharded, 0},
		{"5.0 array", bson.A{bson.Timestamp{T: 2, I: 3}, epoch, ts}, ver(2, 3), 0},
		{"4.x array", bson.A{bson.Timestamp{T: 2, I: 3}, epoch}, routing.ChunkVersion{Epoch: epoch, Major: 2, Minor: 3}, 0},
		{"missing e", bson.D{{Key: "t", Value: ts}, {Key: "v", Value: bson.Timestamp{}}}, routing.ChunkVersion{}, mongoerr.TypeMismatch},
		{"short array", bson.A{bson.Timestamp{}}, routing.ChunkVersion{}, mongoerr.BadValue},
		{"number", int32(1), routing.ChunkVersion{}, mongoerr.TypeMismatch},
	}
	for _, tt := range tests {
		got, err := ParseShardVersion(tt.in)
		if tt.code != 0 {
			if !mongoerr.Is(err, tt.code) {
				t.Errorf("%s: err %v, want code %d", tt.name, err, tt.code)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %v %v, want %v", tt.name, got, err, tt.want)
		}
	}
}

func TestIgnored(t *testing.T) {
	got, _ := bson.MarshalExtJSON(ShardVersionDoc(Ignored), true, false)
	want := `{"e":{"$oid":"00000000ffffffffffffffff"},"t":{"$timestamp":{"t":4294967295,"i":4294967295}},"v":{"$timestamp":{"t":0,"i":0}}}`
	if string(got) != want {
		t.Fatalf("IGNORED = %s, want %s", got, want)
	}
	noTS := Ignored
	noTS.Timestamp = bson.Timestamp{}
	if !isIgnored(Ignored) || !isIgnored(noTS) || isIgnored(Unsharded) {
		t.Fatal("isIgnored")
	}
}

func TestShardVersionDoc(t *testing.T) {
	got, _ := bson.MarshalExtJSON(ShardVersionDoc(Unsharded), true, false)
	want := `{"e":{"$oid":"000000000000000000000000"},"t":{"$timestamp":{"t":0,"i":0}},"v":{"$timestamp":{"t":0,"i":0}}}`
	if string(got) != want {
		t.Fatalf("UNSHARDED = %s, want %s", got, want)
	}
}

func TestCompatible(t *testing.T) {
	other := ver(2, 0)
	other.Epoch[11] = 9
	tests := []struct {
		wanted, received routing.ChunkVersion
		ok               bool
	}{
		{ver(2, 3), ver(2, 3), true},
		{ver(2, 3), ver(2, 0), true}, // a split: minor differs, same owner set
		{ver(2, 0), ver(1, 5), false},
		{ver(1, 5), ver(2, 0), false},
		{ver(2, 0), other, false}, // another generation
		{Unsharded, Unsharded, true},
		{Unsharded, ver(1, 0), false},
		{ver(1, 0), Unsharded, false},
		{ver(0, 0), ver(0, 0), true}, // a shard owning no chunk
	}
	for _, tt := range tests {
		if got := compatible(tt.wanted, tt.received); got != tt.ok {
			t.Errorf("compatible(wanted %s, received %s) = %v", tt.wanted, tt.received, got)
		}
	}
}

var fixedTime = time.Unix(1700000000, 0)

func TestStaleMessage(t *testing.T) {
	other := ver(1, 0)
	other.Epoch[11] = 7
	other.Timestamp.I = 9
	empty := ver(0, 0)
	tests := []struct {
		received, wanted routing.ChunkVersion
		want             string
	}{
		{ver(1, 0), other, "timestamp mismatch detected for db.c"},
		{ver(1, 0), Unsharded, "timestamp mismatch detected for db.c"},
		{ver(1, 0), empty, "this shard no longer contains chunks for db.c, the collection may have been dropped"},
		{empty, ver(1, 0), "this shard contains chunks for db.c, but the client expects unsharded collection"},
		{ver(1, 0), ver(2, 0), "placement version mismatch detected for db.c"},
	}
	for _, tt := range tests {
		if got := staleMessage("db.c", tt.received, &tt.wanted); got != tt.want {
			t.Errorf("received %s wanted %s: %q, want %q", tt.received, tt.wanted, got, tt.want)
		}
	}
}
