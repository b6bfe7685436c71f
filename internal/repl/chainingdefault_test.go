package repl

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestNewSetsDefaultToAutoChaining: a set initiated without chaining
// settings gets chainingMode "auto"; an explicit chainingAllowed is kept.
func TestNewSetsDefaultToAutoChaining(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings bson.D
		wantMode string
		wantOn   bool
	}{
		{"no settings", nil, "auto", true},
		{"explicit chainingAllowed", bson.D{{Key: "chainingAllowed", Value: false}}, "", false},
		{"explicit mode", bson.D{{Key: "chainingAllowed", Value: true}, {Key: "chainingMode", Value: "auto"}}, "auto", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := newCluster(t, 1)
			doc := cl.initiateDoc()
			for i, e := range doc {
				if e.Key == "settings" {
					doc[i].Value = append(e.Value.(bson.D), tc.settings...)
				}
			}
			n0 := cl.node(cl.hosts[0])
			if _, err := runCommand(n0, context.Background(), "replSetInitiate", bson.D{{Key: "replSetInitiate", Value: doc}}); err != nil {
				t.Fatal(err)
			}
			s := n0.load().cfg.Settings
			if s.ChainingMode != tc.wantMode || s.ChainingAllowed != tc.wantOn {
				t.Fatalf("settings chainingMode=%q chainingAllowed=%v, want %q %v", s.ChainingMode, s.ChainingAllowed, tc.wantMode, tc.wantOn)
			}
		})
	}
}
