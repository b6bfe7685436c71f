package command

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

func TestLabelRetryableWCE(t *testing.T) {
	wce := func(code int32) bson.D {
		return bson.D{{Key: "n", Value: int32(1)}, {Key: "writeConcernError", Value: bson.D{{Key: "code", Value: code}}}}
	}
	retryable := bson.D{{Key: "insert", Value: "c"}, {Key: "txnNumber", Value: int64(1)}}
	inTxn := bson.D{{Key: "insert", Value: "c"}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}
	commit := bson.D{{Key: "commitTransaction", Value: 1}, {Key: "txnNumber", Value: int64(1)}, {Key: "autocommit", Value: false}}
	plain := bson.D{{Key: "insert", Value: "c"}}
	tests := []struct {
		name  string
		cmd   bson.D
		reply bson.D
		want  bool
	}{
		{"insert", retryable, wce(189), true},         // PrimarySteppedDown
		{"insert", retryable, wce(11602), true},       // InterruptedDueToReplStateChange
		{"insert", retryable, wce(64), false},         // WriteConcernFailed: not retryable
		{"insert", plain, wce(189), false},            // not a retryable write
		{"insert", inTxn, wce(189), false},            // inside a transaction
		{"commitTransaction", commit, wce(189), true}, // a transaction's commit
		{"insert", retryable, bson.D{{Key: "n", Value: int32(1)}}, false},
	}
	for i, tt := range tests {
		got := LabelRetryableWCE(tt.name, tt.cmd, tt.reply)
		_, labelled := bsonx.Get(got, "errorLabels")
		if labelled != tt.want {
			t.Errorf("case %d (%s): labelled = %v, want %v: %v", i, tt.name, labelled, tt.want, got)
		}
	}
}
