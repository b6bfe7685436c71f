package auth

import (
	"fmt"
	"testing"
	"time"
)

func TestThrottle(t *testing.T) {
	now := time.Unix(0, 0)
	th := NewThrottle()
	th.now = func() time.Time { return now }
	var got []time.Duration
	for range 10 {
		got = append(got, th.Fail("1.2.3.4"))
	}
	want := "[0s 0s 0s 0s 0s 250ms 500ms 1s 2s 4s]"
	if fmt.Sprint(got) != want {
		t.Fatalf("delays %v, want %s", got, want)
	}
	if d := th.Fail("1.2.3.4"); d != 5*time.Second {
		t.Fatalf("cap: %v", d)
	}
	if d := th.Fail("5.6.7.8"); d != 0 {
		t.Fatalf("another address: %v", d)
	}
	now = now.Add(2 * time.Minute)
	if d := th.Fail("1.2.3.4"); d != 0 {
		t.Fatalf("after the window: %v", d)
	}
	for range 6 {
		th.Fail("9.9.9.9")
	}
	th.Succeed("9.9.9.9")
	if d := th.Fail("9.9.9.9"); d != 0 {
		t.Fatalf("after a success: %v", d)
	}
}

func TestThrottleBounded(t *testing.T) {
	th := NewThrottle()
	for i := range maxTracked + 50 {
		th.Fail(fmt.Sprint(i))
	}
	if n := len(th.addr); n > maxTracked {
		t.Fatalf("tracking %d addresses", n)
	}
}
