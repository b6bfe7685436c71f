package auth

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseMechanisms(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Mechanisms
		bad  bool
	}{
		{in: "SCRAM-SHA-256", want: Mechanisms{MechSHA256}},
		{in: "SCRAM-SHA-256,SCRAM-SHA-1,SCRAM-SHA-256", want: Mechanisms{MechSHA1, MechSHA256}},
		{in: "MONGODB-X509", want: Mechanisms{MechX509}},
		{in: "", bad: true},
		{in: "PLAIN", bad: true},
		{in: "SCRAM-SHA-1,GSSAPI", bad: true},
		{in: "scram-sha-1", bad: true},
	} {
		got, err := ParseMechanisms(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("ParseMechanisms(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestMechanismsCheck(t *testing.T) {
	only256 := Mechanisms{MechSHA256}
	for _, tc := range []struct {
		m        Mechanisms
		mech, db string
		ok       bool
	}{
		{only256, MechSHA256, "admin", true},
		{only256, MechSHA1, "admin", false},
		{only256, MechX509, "$external", false},
		{only256, MechSHA1, SystemDB, true}, // key-file member login
		{Mechanisms{MechX509}, MechSHA256, SystemDB, true},
		{nil, MechX509, "$external", true},
		{nil, "PLAIN", "admin", false},
	} {
		err := tc.m.Check(tc.mech, tc.db)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrMechanismUnavailable)) {
			t.Errorf("%v.Check(%s, %s) = %v", tc.m, tc.mech, tc.db, err)
		}
	}
	if got := only256.Filter([]string{MechSHA1, MechSHA256}); len(got) != 1 || got[0] != MechSHA256 {
		t.Errorf("Filter = %v", got)
	}
	if got := DefaultMechanisms(true); !reflect.DeepEqual(got, Mechanisms{MechX509, MechSHA1, MechSHA256}) {
		t.Errorf("DefaultMechanisms(true) = %v", got)
	}
}
