package cluster

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files under testdata")

func ports(base, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = base + i
	}
	return p
}

// TestInitiateConfigGolden pins the replSetInitiate documents of the
// reference topologies (and the other roles) as canonical Extended JSON.
func TestInitiateConfigGolden(t *testing.T) {
	tests := []struct {
		file string
		spec Spec
	}{
		{"ref3.json", ref3},
		{"ref7.json", ref7},
		{"ref15.json", ref15},
		{"ref15_chaining_off.json", func() Spec { s := ref15; s.Chaining = "false"; return s }()},
		{"ref15_chaining_auto.json", func() Spec { s := ref15; s.Chaining = "auto"; return s }()},
		{"all_roles.json", Spec{Dir: "d", Name: "lab", Data: 2, Hidden: 1, Delayed: 1, DelaySecs: 120, ReadOnly: 1, Arbiter: true}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			doc, err := InitiateConfig(tt.spec, ports(30000, tt.spec.Count()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := bson.MarshalExtJSONIndent(doc, true, false, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", tt.file)
			if *rewrite {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -rewrite to create)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("replSetInitiate for %s differs from %s:\n%s", tt.file, path, got)
			}
		})
	}
}

// TestInitiateConfigVotes checks the counts that make the 15-member set
// valid in MongoDB: 7 voters, 8 non-voting priority-0 members.
func TestInitiateConfigVotes(t *testing.T) {
	doc, err := InitiateConfig(ref15, ports(30000, 15))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Members []struct {
			Votes    int32   `bson:"votes"`
			Priority float64 `bson:"priority"`
			Hidden   bool    `bson:"hidden"`
		} `bson:"members"`
	}
	raw, _ := bson.Marshal(doc)
	if err := bson.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	var voters, nonVotingP0, hidden int
	for _, m := range cfg.Members {
		voters += int(m.Votes)
		if m.Votes == 0 && m.Priority == 0 {
			nonVotingP0++
		}
		if m.Hidden {
			hidden++
		}
	}
	if len(cfg.Members) != 15 || voters != 7 || nonVotingP0 != 8 || hidden != 1 {
		t.Fatalf("members/voters/read-only/hidden = %d/%d/%d/%d, want 15/7/8/1",
			len(cfg.Members), voters, nonVotingP0, hidden)
	}
}

func TestInitiateConfigPortCount(t *testing.T) {
	if _, err := InitiateConfig(ref3, ports(1, 2)); err == nil {
		t.Fatal("InitiateConfig with 2 ports for 3 members succeeded, want error")
	}
}
