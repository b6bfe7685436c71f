package router

import (
	"testing"
	"time"
)

func TestValidUserCacheInterval(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want int64
		ok   bool
	}{
		{int32(1), 1, true}, {int64(86400), 86400, true}, {30.0, 30, true},
		{int32(0), 0, false}, {int32(86401), 0, false}, {int32(-5), 0, false}, {"30", 0, false}, {nil, 0, false},
	} {
		got, err := ValidUserCacheInterval(tc.v)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ValidUserCacheInterval(%v) = %d, %v", tc.v, got, err)
		}
	}
}

// TestUserCacheInvalidatedWhenInDoubt: with the config servers
// unreachable the poll fails and the cache is emptied (when in doubt,
// invalidate); lowering the interval with setParameter takes effect at
// once, without waiting out the old one.
func TestUserCacheInvalidatedWhenInDoubt(t *testing.T) {
	r, err := New(Options{ConfigDB: "cfg/127.0.0.1:1", Version: "7.0.0", Auth: true, UserCacheInvalidationIntervalSecs: 3600})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	r.auth.users.mu.Lock()
	r.auth.users.mu.m["test.u"] = &cachedUser{}
	r.auth.users.mu.Unlock()
	if old, handled, err := r.setAuthParameter("userCacheInvalidationIntervalSecs", int32(1)); !handled || err != nil || old != int32(3600) {
		t.Fatalf("setting the interval: %v %v %v", old, handled, err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for r.auth.users.len() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the user cache was not invalidated after a failed poll")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ps := r.parameters()
	if last := ps[len(ps)-1]; last.Key != "userCacheInvalidationIntervalSecs" || last.Value != int32(1) {
		t.Fatalf("parameters = %v", ps)
	}
	if _, _, err := r.setAuthParameter("userCacheInvalidationIntervalSecs", int32(0)); err == nil {
		t.Fatal("interval 0 accepted")
	}
}
