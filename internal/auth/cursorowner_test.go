package auth

import "testing"

func TestCoauthorized(t *testing.T) {
	for _, tc := range []struct {
		owners, users []string
		want          bool
	}{
		{nil, nil, true},
		{[]string{"app.a"}, []string{"app.a"}, true},
		{[]string{"app.a"}, []string{"app.b"}, false},
		{[]string{"app.a"}, nil, false},
		{nil, []string{"app.a"}, false},
		{[]string{"admin.root", "app.a"}, []string{"app.a", "app.b"}, true},
		{[]string{"app.a"}, []string{"other.a"}, false},
	} {
		if got := Coauthorized(tc.owners, tc.users); got != tc.want {
			t.Errorf("Coauthorized(%v, %v) = %v, want %v", tc.owners, tc.users, got, tc.want)
		}
	}
	if got := SortedOwners([]string{"b", "a", "b"}); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("SortedOwners = %v", got)
	}
}
