package spec

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func TestArgTableApply(t *testing.T) {
	table := argTable[*options.FindOptionsBuilder]{
		"filter":    nil,
		"limit":     int64ArgOf((*options.FindOptionsBuilder).SetLimit),
		"returnKey": boolArg((*options.FindOptionsBuilder).SetReturnKey),
	}
	tests := []struct {
		name      string
		args      bson.D
		wantErr   bool
		wantLimit int64
	}{
		{"empty", bson.D{}, false, 0},
		{"caller-read argument is accepted", bson.D{{Key: "filter", Value: bson.D{}}}, false, 0},
		{"setter applied", bson.D{{Key: "limit", Value: int32(3)}, {Key: "returnKey", Value: true}}, false, 3},
		{"unsupported argument", bson.D{{Key: "limit", Value: int32(3)}, {Key: "bogus", Value: 1}}, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := options.Find()
			err := table.apply("find", o, tc.args)
			var re *runnerError
			if tc.wantErr != errors.As(err, &re) {
				t.Fatalf("apply error = %v, want runner error %v", err, tc.wantErr)
			}
			var got options.FindOptions
			for _, set := range o.List() {
				if err := set(&got); err != nil {
					t.Fatal(err)
				}
			}
			if lim := got.Limit; (lim == nil && tc.wantLimit != 0) || (lim != nil && *lim != tc.wantLimit) {
				t.Fatalf("limit = %v, want %d", lim, tc.wantLimit)
			}
		})
	}
}

func TestCommandArgs(t *testing.T) {
	args := bson.D{{Key: "to", Value: "b"}, {Key: "dropTarget", Value: true}}
	cmd, err := commandArgs("rename", bson.D{{Key: "renameCollection", Value: "db.a"}}, args, []string{"to"}, "dropTarget")
	if err != nil {
		t.Fatal(err)
	}
	want := bson.D{{Key: "renameCollection", Value: "db.a"}, {Key: "dropTarget", Value: true}}
	if show(cmd) != show(want) {
		t.Fatalf("cmd = %s, want %s", show(cmd), show(want))
	}
	if _, err := commandArgs("rename", nil, args, nil, "dropTarget"); err == nil {
		t.Fatal("want an unsupported-argument error for an unlisted key")
	}
}
