package router

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// TestMovePrimaryArgs: movePrimary's refusals, with MongoDB's codes.
func TestMovePrimaryArgs(t *testing.T) {
	for _, tc := range []struct {
		name, db string
		cmd      bson.D
		to       string
		code     mongoerr.Code
	}{
		{"ok", "app", bson.D{{Key: "movePrimary", Value: "app"}, {Key: "to", Value: "sh1"}}, "sh1", 0},
		{"empty name", "", bson.D{{Key: "movePrimary", Value: ""}, {Key: "to", Value: "sh1"}}, "", mongoerr.InvalidNamespace},
		{"dotted name", "a.b", bson.D{{Key: "movePrimary", Value: "a.b"}, {Key: "to", Value: "sh1"}}, "", mongoerr.InvalidNamespace},
		{"admin", "admin", bson.D{{Key: "movePrimary", Value: "admin"}, {Key: "to", Value: "sh1"}}, "", mongoerr.InvalidOptions},
		{"config", "config", bson.D{{Key: "movePrimary", Value: "config"}, {Key: "to", Value: "sh1"}}, "", mongoerr.InvalidOptions},
		{"local", "local", bson.D{{Key: "movePrimary", Value: "local"}, {Key: "to", Value: "sh1"}}, "", mongoerr.InvalidOptions},
		{"no to", "app", bson.D{{Key: "movePrimary", Value: "app"}}, "", mongoerr.IDLMissingField},
		{"empty to", "app", bson.D{{Key: "movePrimary", Value: "app"}, {Key: "to", Value: ""}}, "", mongoerr.InvalidOptions},
		{"to not a string", "app", bson.D{{Key: "movePrimary", Value: "app"}, {Key: "to", Value: int32(1)}}, "", mongoerr.TypeMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			to, err := movePrimaryArgs(tc.cmd, tc.db)
			if tc.code == 0 {
				if err != nil || to != tc.to {
					t.Fatalf("movePrimaryArgs = %q, %v; want %q", to, err, tc.to)
				}
				return
			}
			if !mongoerr.Is(err, tc.code) {
				t.Fatalf("movePrimaryArgs error %v, want code %d", err, tc.code)
			}
		})
	}
}
