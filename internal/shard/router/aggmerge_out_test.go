package router

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/agg"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestOutReadConcern(t *testing.T) {
	lin := d("aggregate", "c", "readConcern", d("level", "linearizable"))
	maj := d("aggregate", "c", "readConcern", d("level", "majority"))
	out, merge := &agg.OutSpec{DB: "db", Coll: "o"}, &agg.MergeSpec{}
	for _, tc := range []struct {
		name  string
		cmd   bson.D
		out   *agg.OutSpec
		merge *agg.MergeSpec
		fails bool
	}{
		{"out linearizable", lin, out, nil, true},
		{"merge linearizable", lin, nil, merge, true},
		{"out majority", maj, out, nil, false},
		{"no writer stage", lin, nil, nil, false},
		{"no readConcern", d("aggregate", "c"), out, nil, false},
	} {
		err := outReadConcern(tc.cmd, tc.out, tc.merge)
		var me *mongoerr.Error
		if got := err != nil; got != tc.fails {
			t.Errorf("%s: error %v, want failure %v", tc.name, err, tc.fails)
		} else if tc.fails && (!errors.As(err, &me) || me.Code != mongoerr.InvalidOptions) {
			t.Errorf("%s: error %v, want InvalidOptions", tc.name, err)
		}
	}
}
