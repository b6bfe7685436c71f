package clock

import (
	"testing"
	"time"
)

var epoch = time.Unix(1_700_000_000, 0)

func recv(c <-chan time.Time) (time.Time, bool) {
	select {
	case t := <-c:
		return t, true
	default:
		return time.Time{}, false
	}
}

func TestManualTimerFiresOnlyWhenDue(t *testing.T) {
	m := NewManual(epoch)
	tm := m.NewTimer(time.Second)
	m.Advance(999 * time.Millisecond)
	if _, ok := recv(tm.C()); ok {
		t.Fatal("fired early")
	}
	m.Advance(time.Millisecond)
	at, ok := recv(tm.C())
	if !ok || !at.Equal(epoch.Add(time.Second)) {
		t.Fatalf("fired %v at %v", ok, at)
	}
	if tm.Stop() {
		t.Fatal("Stop after firing reports pending")
	}
	if m.Pending() != 0 {
		t.Fatalf("pending %d", m.Pending())
	}
}

func TestManualStopPreventsFiring(t *testing.T) {
	m := NewManual(epoch)
	tm := m.NewTimer(time.Second)
	if !tm.Stop() {
		t.Fatal("Stop of a pending timer reports false")
	}
	m.Advance(time.Hour)
	if _, ok := recv(tm.C()); ok {
		t.Fatal("stopped timer fired")
	}
}

func TestManualTickerDropsMissedTicks(t *testing.T) {
	m := NewManual(epoch)
	tk := m.NewTicker(100 * time.Millisecond)
	m.Advance(350 * time.Millisecond) // due 3 times; the channel holds one
	at, ok := recv(tk.C())
	if !ok || !at.Equal(epoch.Add(100*time.Millisecond)) {
		t.Fatalf("first tick %v %v", ok, at)
	}
	if _, ok := recv(tk.C()); ok {
		t.Fatal("missed ticks were queued")
	}
	m.Advance(50 * time.Millisecond)
	if at, ok := recv(tk.C()); !ok || !at.Equal(epoch.Add(400*time.Millisecond)) {
		t.Fatalf("next tick %v %v", ok, at)
	}
	tk.Stop()
	m.Advance(time.Second)
	if _, ok := recv(tk.C()); ok {
		t.Fatal("stopped ticker fired")
	}
}

func TestManualFiresInDeadlineOrderAndNowFollows(t *testing.T) {
	m := NewManual(epoch)
	late := m.NewTimer(2 * time.Second)
	early := m.After(time.Second)
	if next, ok := m.Next(); !ok || !next.Equal(epoch.Add(time.Second)) {
		t.Fatalf("Next %v %v", next, ok)
	}
	m.Set(epoch.Add(5 * time.Second))
	a, _ := recv(early)
	b, _ := recv(late.C())
	if !a.Before(b) {
		t.Fatalf("early %v late %v", a, b)
	}
	if !m.Now().Equal(epoch.Add(5 * time.Second)) {
		t.Fatalf("now %v", m.Now())
	}
	m.Set(epoch) // never backwards
	if !m.Now().Equal(epoch.Add(5 * time.Second)) {
		t.Fatalf("moved backwards to %v", m.Now())
	}
}

func TestZeroDurationFiresAtOnce(t *testing.T) {
	m := NewManual(epoch)
	if _, ok := recv(m.After(0)); !ok {
		t.Fatal("After(0) did not fire")
	}
}

func TestRealClockTicks(t *testing.T) {
	c := Real()
	tk := c.NewTicker(time.Millisecond)
	defer tk.Stop()
	<-tk.C()
	if tm := c.NewTimer(time.Hour); !tm.Stop() {
		t.Fatal("real timer Stop")
	}
	if c.Now().IsZero() {
		t.Fatal("zero now")
	}
}
