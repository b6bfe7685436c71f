package topology

import (
	"errors"
	"strings"
	"testing"

	"github.com/relaydb/relaydb/internal/mongoerr"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestConfigValidate(t *testing.T) {
	three := func(edit func(c *Config)) Config {
		c := NewConfig("rs0", NewMember(0, "a"), NewMember(1, "b"), NewMember(2, "c"))
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" = valid
	}{
		{"valid", three(func(*Config) {}), ""},
		{"dup id", three(func(c *Config) { c.Members[2].ID = 0 }), "same _id field"},
		{"dup host", three(func(c *Config) { c.Members[2].Host = "a" }), "same host field"},
		{"hidden priority", three(func(c *Config) { c.Members[1].Hidden = true }), "priority must be 0 when hidden=true"},
		{"nonvoter priority", three(func(c *Config) { c.Members[1].Votes = 0 }), "priority must be 0 when non-voting"},
		{"delayed priority", three(func(c *Config) { c.Members[1].SecondaryDelaySecs = 60 }), "secondaryDelaySecs"},
		{"votes 2", three(func(c *Config) { c.Members[1].Votes = 2 }), "must be 0 or 1"},
		{"arbiter 0 votes", three(func(c *Config) { c.Members[1].ArbiterOnly, c.Members[1].Priority, c.Members[1].Votes = true, 0, 0 }), "Arbiter must vote"},
		{"no electable", three(func(c *Config) {
			for i := range c.Members {
				c.Members[i].Priority = 0
			}
		}), "at least one non-arbiter member with priority > 0"},
		{"8 voters", three(func(c *Config) {
			for i := 3; i < 8; i++ {
				c.Members = append(c.Members, NewMember(i, string(rune('d'+i))))
			}
		}), "8 voting members"},
		{"bad mode", three(func(c *Config) { c.Settings.ChainingMode = "fast" }), "chainingMode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var me *mongoerr.Error
			if !errors.As(err, &me) || me.Code != mongoerr.InvalidReplicaSetConfig || !strings.Contains(me.Msg, tt.want) {
				t.Fatalf("got %v, want InvalidReplicaSetConfig containing %q", err, tt.want)
			}
		})
	}
}

func TestConfigNewerAndOpTime(t *testing.T) {
	a, b := Config{Term: 1, Version: 5}, Config{Term: 2, Version: 1}
	if a.Newer(b) || !b.Newer(a) {
		t.Fatal("term must order configs before version")
	}
	old := OpTime{TS: bson.Timestamp{T: 200}, Term: 1}
	newer := OpTime{TS: bson.Timestamp{T: 100}, Term: 2}
	if !old.Less(newer) || newer.Less(old) || old.Compare(old) != 0 {
		t.Fatal("OpTime must order by term, then timestamp")
	}
}
