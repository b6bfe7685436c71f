package cluster

import (
	"strings"
	"testing"
)

// The reference topologies of shared/docs/reference-experiments.md §1.
var (
	ref3  = Spec{Dir: "/tmp/x", Data: 2, Hidden: 1}
	ref7  = Spec{Dir: "/tmp/x", Data: 6, Hidden: 1}
	ref15 = Spec{Dir: "/tmp/x", Data: 6, Hidden: 1, ReadOnly: 8}
)

func TestValidate(t *testing.T) {
	ok := func(s Spec) Spec { return s }
	tests := []struct {
		name string
		spec Spec
		want string // substring of the error; "" = valid
	}{
		{"ref3", ref3, ""},
		{"ref7", ref7, ""},
		{"ref15", ref15, ""},
		{"one node", Spec{Dir: "d", Data: 1}, ""},
		{"all roles", Spec{Dir: "d", Data: 3, Arbiter: true, Hidden: 1, Delayed: 1, ReadOnly: 2}, ""},
		{"seven voters with arbiter", Spec{Dir: "d", Data: 5, Hidden: 1, Arbiter: true}, ""},
		{"no dir", Spec{Data: 3}, "--dir"},
		{"no data", Spec{Dir: "d"}, "--data must be at least 1"},
		{"only hidden", Spec{Dir: "d", Hidden: 2}, "--data must be at least 1"},
		{"negative hidden", Spec{Dir: "d", Data: 1, Hidden: -1}, "negative"},
		{"negative delay", Spec{Dir: "d", Data: 1, Delayed: 1, DelaySecs: -5}, "--delay"},
		{"eight voters", Spec{Dir: "d", Data: 8}, "8 voting members exceed the limit of 7"},
		{"voters via hidden", Spec{Dir: "d", Data: 6, Hidden: 1, Arbiter: true}, "8 voting members"},
		{"51 members", Spec{Dir: "d", Data: 7, ReadOnly: 44}, "51 members exceed the limit of 50"},
		{"50 members", ok(Spec{Dir: "d", Data: 7, ReadOnly: 43}), ""},
		{"bad chaining", Spec{Dir: "d", Data: 3, Chaining: "maybe"}, "--chaining"},
		{"auto chaining", Spec{Dir: "d", Data: 3, Chaining: "auto"}, ""},
		{"port overflow", Spec{Dir: "d", Data: 3, BasePort: 65534}, "--base-port"},
		{"port fits", Spec{Dir: "d", Data: 3, BasePort: 65533}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.spec.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want != "" && err == nil:
				t.Fatalf("Validate() = nil, want error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("Validate() = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestMembersRoles(t *testing.T) {
	s := Spec{Dir: "d", Data: 2, Hidden: 1, Delayed: 1, DelaySecs: 60, ReadOnly: 1, Arbiter: true}
	got := s.Members()
	want := []MemberSpec{
		{Name: "m0", Role: RoleData, Priority: 1, Votes: 1},
		{Name: "m1", Role: RoleData, Priority: 1, Votes: 1},
		{Name: "m2", Role: RoleHidden, Votes: 1, Hidden: true},
		{Name: "m3", Role: RoleDelayed, Hidden: true, SecondaryDelaySecs: 60},
		{Name: "m4", Role: RoleReadOnly},
		{Name: "m5", Role: RoleArbiter, Votes: 1, ArbiterOnly: true},
	}
	if len(got) != len(want) {
		t.Fatalf("Members() has %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s.Count() != 6 || s.Voters() != 4 {
		t.Errorf("Count/Voters = %d/%d, want 6/4", s.Count(), s.Voters())
	}
}

func TestDelayDefault(t *testing.T) {
	m := Spec{Dir: "d", Data: 1, Delayed: 1}.Members()
	if m[1].SecondaryDelaySecs != 3600 {
		t.Fatalf("default secondaryDelaySecs = %d, want 3600", m[1].SecondaryDelaySecs)
	}
}

func TestURIFor(t *testing.T) {
	got := URIFor("rs0", []string{"127.0.0.1:1", "127.0.0.1:2"})
	if want := "mongodb://127.0.0.1:1,127.0.0.1:2/?replicaSet=rs0"; got != want {
		t.Fatalf("URIFor = %q, want %q", got, want)
	}
}
