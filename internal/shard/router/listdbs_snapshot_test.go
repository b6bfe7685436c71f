package router

import (
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func TestRefuseSnapshotRead(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cmd   bson.D
		fails bool
	}{
		{"snapshot", d("listDatabases", 1, "readConcern", d("level", "snapshot")), true},
		{"majority", d("listDatabases", 1, "readConcern", d("level", "majority")), false},
		{"none", d("listDatabases", 1), false},
	} {
		err := refuseSnapshotRead(tc.cmd, "listDatabases")
		var me *mongoerr.Error
		if (err != nil) != tc.fails || (tc.fails && (!errors.As(err, &me) || me.Code != mongoerr.InvalidOptions)) {
			t.Errorf("%s: error %v, want failure %v (InvalidOptions)", tc.name, err, tc.fails)
		}
	}
}
