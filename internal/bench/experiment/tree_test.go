package experiment

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// set builds a status: each entry is name, state, source name ("" none).
func set(entries ...[3]string) ReplStatus {
	host := func(n string) string {
		if n == "" {
			return ""
		}
		if n[0] != 'm' {
			return n // an unknown host, verbatim
		}
		return "127.0.0.1:1" + n[1:]
	}
	var st ReplStatus
	for _, e := range entries {
		st.Members = append(st.Members, MemberState{Name: e[0], Host: host(e[0]), State: e[1], SyncSource: host(e[2])})
	}
	return st
}

func TestTree(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   ReplStatus
		want string
	}{
		{"brief example", set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"},
			[3]string{"m2", "SECONDARY", "m0"}, [3]string{"m3", "SECONDARY", "m1"}),
			"m0 <- m1 <- m3; m0 <- m2"},
		{"star", set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"},
			[3]string{"m2", "SECONDARY", "m0"}), "m0 <- m1; m0 <- m2"},
		{"branch mid-chain", set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"},
			[3]string{"m2", "SECONDARY", "m1"}, [3]string{"m3", "SECONDARY", "m1"}, [3]string{"m4", "SECONDARY", "m3"}),
			"m0 <- m1 <- m2; m1 <- m3 <- m4"},
		{"primary alone", set([3]string{"m0", "PRIMARY", ""}), "m0"},
		{"no source", set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"},
			[3]string{"m2", "STARTUP2", ""}), "m0 <- m1; m2: no sync source"},
		{"primary not m0", set([3]string{"m0", "SECONDARY", "m2"}, [3]string{"m1", "SECONDARY", "m0"},
			[3]string{"m2", "PRIMARY", ""}), "m2 <- m0 <- m1"},
		{"cycle without primary", set([3]string{"m0", "SECONDARY", "m1"}, [3]string{"m1", "SECONDARY", "m0"}),
			"m1 <- m0 <- m1 (cycle)"},
		{"unknown host", set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "10.0.0.9:27017"}),
			"m0; 10.0.0.9:27017 <- m1"},
	} {
		if got := Tree(tc.st); got != tc.want {
			t.Errorf("%s: Tree = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestLag(t *testing.T) {
	st := set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"}, [3]string{"m2", "SECONDARY", "m1"})
	st.Members[0].Optime = bson.Timestamp{T: 100, I: 5}
	st.Members[1].Optime = bson.Timestamp{T: 100, I: 5}
	st.Members[2].Optime = bson.Timestamp{T: 100, I: 5}
	if secs, behind, ok := Lag(st); secs != 0 || behind || !ok {
		t.Errorf("caught up: %v %v %v", secs, behind, ok)
	}
	st.Members[1].Optime = bson.Timestamp{T: 100, I: 2}
	if secs, behind, ok := Lag(st); secs != 0 || !behind || !ok {
		t.Errorf("same second behind: %v %v %v", secs, behind, ok)
	}
	st.Members[2].Optime = bson.Timestamp{T: 97, I: 9}
	if secs, behind, _ := Lag(st); secs != 3 || !behind {
		t.Errorf("3 s behind: %v %v", secs, behind)
	}
	st.Members[0].State = "SECONDARY"
	if _, _, ok := Lag(st); ok {
		t.Error("Lag without a primary reported ok")
	}
}

func TestSettled(t *testing.T) {
	st := set([3]string{"m0", "PRIMARY", ""}, [3]string{"m1", "SECONDARY", "m0"}, [3]string{"m2", "SECONDARY", "m1"})
	if err := settled(st); err != nil {
		t.Errorf("settled: %v", err)
	}
	st.Members[2].Optime = bson.Timestamp{T: 0, I: 0}
	st.Members[0].Optime = bson.Timestamp{T: 5, I: 1}
	st.Members[1].Optime = st.Members[0].Optime
	if err := settled(st); err == nil || !strings.Contains(err.Error(), "m2 (SECONDARY, optime 0.0)") {
		t.Errorf("behind: %v", err)
	}
	st.Members[2].Optime = st.Members[0].Optime
	st.Members[1].SyncSource = ""
	if err := settled(st); err == nil || !strings.Contains(err.Error(), "m1 (SECONDARY) has no sync source") {
		t.Errorf("no source: %v", err)
	}
	st.Members[0].State = "SECONDARY"
	if err := settled(st); err == nil {
		t.Error("settled without a primary")
	}
}
