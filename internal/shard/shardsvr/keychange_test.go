package shardsvr

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/exec"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestKeyChangeRule: sh0 owns x < 0, sh1 owns x >= 0 (table).
func TestKeyChangeRule(t *testing.T) {
	m := table(t, "sh1")
	doc := func(x any) bson.D { return bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: x}} }
	pinned := bson.D{{Key: "x", Value: -5}}
	for _, tc := range []struct {
		name string
		k    exec.KeyChange
		code mongoerr.Code // 0: allowed
	}{
		{"same key", exec.KeyChange{Old: doc(-5), New: append(doc(-5), bson.E{Key: "y", Value: 1})}, 0},
		{"missing set to null", exec.KeyChange{Old: bson.D{{Key: "_id", Value: 1}}, New: doc(nil)}, 0},
		{"multi", exec.KeyChange{Old: doc(-5), New: doc(-6), Multi: true, Query: pinned, Retryable: true}, mongoerr.InvalidOptions},
		{"no full key", exec.KeyChange{Old: doc(-5), New: doc(-6), Query: bson.D{{Key: "_id", Value: 1}}, Retryable: true},
			mongoerr.ShardKeyUpdateWithoutFullKey},
		{"not retryable", exec.KeyChange{Old: doc(-5), New: doc(-6), Query: pinned}, mongoerr.IllegalOperation},
		{"stays here", exec.KeyChange{Old: doc(-5), New: doc(-6), Query: pinned, Retryable: true}, 0},
		{"moves", exec.KeyChange{Old: doc(-5), New: doc(5), Query: pinned, Retryable: true}, mongoerr.WouldChangeOwningShard},
		{"orphan left alone", exec.KeyChange{Old: doc(5), New: bson.D{{Key: "_id", Value: 1}}, Query: bson.D{{Key: "x", Value: 5}}, Retryable: true}, 0},
		{"array", exec.KeyChange{Old: doc(-5), New: doc(bson.A{1}), Query: pinned, Retryable: true}, mongoerr.ShardKeyNotFound},
		{"upsert here", exec.KeyChange{New: doc(-1), Upsert: true, Query: pinned}, 0},
		{"upsert elsewhere", exec.KeyChange{New: doc(1), Upsert: true, Query: pinned, Retryable: true}, mongoerr.WouldChangeOwningShard},
		{"upsert elsewhere not retryable", exec.KeyChange{New: doc(1), Upsert: true, Query: pinned}, mongoerr.IllegalOperation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := keyChangeRule(m, "sh0", tc.k)
			if tc.code == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !mongoerr.Is(err, tc.code) {
				t.Fatalf("got %v, want code %d", err, tc.code)
			}
		})
	}
}

// TestWouldChangeOwningShardInfo: the error carries the images inline.
func TestWouldChangeOwningShardInfo(t *testing.T) {
	m := table(t, "sh1")
	pre := bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: -5}}
	post := bson.D{{Key: "_id", Value: 1}, {Key: "x", Value: 5}}
	err := keyChangeRule(m, "sh0", exec.KeyChange{Old: pre, New: post, Query: bson.D{{Key: "x", Value: -5}}, Retryable: true})
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got %T %v", err, err)
	}
	info := e.ExtraInfo()
	if len(info) != 3 || info[0].Key != "preImage" || info[1].Key != "postImage" || info[2].Value != false {
		t.Fatalf("info %v", info)
	}
	if !sameBSON(info[0].Value.(bson.D), pre) || !sameBSON(info[1].Value.(bson.D), post) {
		t.Fatalf("images %v", info)
	}
}
