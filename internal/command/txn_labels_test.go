package command

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestWithTxnLabels(t *testing.T) {
	inTxn := bson.D{{Key: "x", Value: 1}, {Key: "autocommit", Value: false}}
	for _, tc := range []struct {
		name string
		cmd  bson.D
		err  error
		want []string
	}{
		{"insert", inTxn, mongoerr.New(mongoerr.WriteConflict, "x"), []string{mongoerr.LabelTransientTransaction}},
		{"find", inTxn, mongoerr.New(mongoerr.NoSuchTransaction, "x"), []string{mongoerr.LabelTransientTransaction}},
		{"insert", inTxn, mongoerr.New(mongoerr.LockTimeout, "x"), []string{mongoerr.LabelTransientTransaction}},
		{"commitTransaction", inTxn, mongoerr.New(mongoerr.NotWritablePrimary, "x"),
			[]string{mongoerr.LabelUnknownTransactionCommit, mongoerr.LabelRetryableWrite}},
		{"commitTransaction", inTxn, mongoerr.New(mongoerr.MaxTimeMSExpired, "x"), []string{mongoerr.LabelUnknownTransactionCommit}},
		{"abortTransaction", inTxn, mongoerr.New(mongoerr.NotWritablePrimary, "x"), []string{mongoerr.LabelRetryableWrite}},
		{"insert", inTxn, mongoerr.New(mongoerr.DuplicateKey, "x"), nil},
		{"insert", inTxn, mongoerr.New(mongoerr.NotWritablePrimary, "x"), []string{mongoerr.LabelTransientTransaction}},
		{"insert", bson.D{{Key: "x", Value: 1}}, mongoerr.New(mongoerr.WriteConflict, "x"), nil},
		{"insert", inTxn, &mongoerr.Error{Code: mongoerr.WriteConflict, Labels: []string{}}, []string{}},
	} {
		got := mongoerr.From(WithTxnLabels(tc.name, tc.cmd, tc.err)).Labels
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %v: labels %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
