package netclient

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func tagsDoc(dc string) bson.E { return bson.E{Key: "tags", Value: bson.D{{Key: "dc", Value: dc}}} }

// picks runs Select n times and counts the hosts it returns.
func picks(t *testing.T, rs *ReplicaSet, p ReadPref, n int) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got := map[string]int{}
	for range n {
		h, err := rs.Select(ctx, p)
		if err != nil {
			t.Fatalf("Select(%s): %v", p, err)
		}
		got[h]++
	}
	return got
}

// TestSelectMembers: the set's monitors feed selection what hello says:
// tags route reads, a hidden member never serves one, a member far away
// (simulated latency) is outside nearest's window, and a read nothing
// matches fails at once with mongos's FailedToSatisfyReadPreference.
func TestSelectMembers(t *testing.T) {
	fs := startFakeSet(t, 4)
	a, b, c, d := fs.hosts[0], fs.hosts[1], fs.hosts[2], fs.hosts[3]
	fs.listed = fs.hosts[:3] // d is hidden: not in hosts, found as a seed
	fs.extra = map[string]bson.D{
		a: {tagsDoc("east")},
		b: {tagsDoc("east")},
		c: {tagsDoc("west")},
		d: {tagsDoc("east"), {Key: "hidden", Value: true}},
	}
	pool := NewPool(Options{LatencyTo: map[string]time.Duration{c: 40 * time.Millisecond}})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 5 * time.Second})
	defer rs.Close()

	if got := picks(t, rs, ReadPref{Mode: ModeSecondary, TagSets: []bson.D{{{Key: "dc", Value: "east"}}}}, 20); got[b] != 20 {
		t.Fatalf("secondary dc:east went to %v, want only %s (d is hidden)", got, b)
	}
	if got := picks(t, rs, ReadPref{Mode: ModeSecondary, TagSets: []bson.D{{{Key: "dc", Value: "west"}}}}, 5); got[c] != 5 {
		t.Fatalf("secondary dc:west went to %v, want %s", got, c)
	}
	// c is 40 ms away: nearest is a or b, both in the 15 ms window.
	got := picks(t, rs, ReadPref{Mode: ModeNearest}, 60)
	if got[c] != 0 || got[d] != 0 || got[a] == 0 || got[b] == 0 {
		t.Fatalf("nearest went to %v; want a and b only", got)
	}
	if got := picks(t, rs, ReadPref{Mode: ModeSecondaryPreferred, TagSets: []bson.D{{{Key: "dc", Value: "north"}}}}, 3); got[a] != 3 {
		t.Fatalf("secondaryPreferred without a match went to %v, want the primary", got)
	}

	start := time.Now()
	_, err := rs.Select(context.Background(), ReadPref{Mode: ModeSecondary, TagSets: []bson.D{{{Key: "dc", Value: "north"}}}})
	var want = `Could not find host matching read preference { mode: "secondary", tags: [ { dc: "north" } ] } for set rs`
	if !mongoerr.Is(err, mongoerr.FailedToSatisfyReadPreference) || !strings.Contains(err.Error(), want) {
		t.Fatalf("no matching member: %v, want FailedToSatisfyReadPreference %q", err, want)
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("no matching member took %v: every member answered, nothing to wait for", el)
	}
	for _, m := range rs.Members() {
		if m.Host == c && m.PingTime < 40*time.Millisecond {
			t.Fatalf("c's round trip %v, want at least its simulated 40 ms", m.PingTime)
		}
	}
}

// TestSelectPrimaryPreferredWithoutPrimary: while the primary is down,
// primaryPreferred reads a secondary at once; mode primary waits.
func TestSelectPrimaryPreferredWithoutPrimary(t *testing.T) {
	fs := startFakeSet(t, 3)
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 5 * time.Second, SelectTimeout: 300 * time.Millisecond})
	defer rs.Close()
	if got := picks(t, rs, ReadPref{Mode: ModePrimaryPreferred}, 5); got[fs.hosts[0]] != 5 {
		t.Fatalf("primaryPreferred with a primary went to %v", got)
	}
	fs.lns[0].Close()
	fs.mu.Lock()
	fs.primary = ""
	fs.mu.Unlock()
	rs.MarkFailed(fs.hosts[0], nil)
	got := picks(t, rs, ReadPref{Mode: ModePrimaryPreferred}, 20)
	if got[fs.hosts[0]] != 0 || got[fs.hosts[1]]+got[fs.hosts[2]] != 20 {
		t.Fatalf("primaryPreferred without a primary went to %v", got)
	}
	if _, err := rs.Select(context.Background(), ReadPref{Mode: ModePrimary}); !mongoerr.Is(err, mongoerr.FailedToSatisfyReadPreference) {
		t.Fatalf("mode primary without one: %v", err)
	}
}

// TestRTTProbe: with streaming hellos the round trip comes from the
// probe's prompt hellos, never from an awaitable hello's wait, and
// follows a latency that appears after the first check.
func TestRTTProbe(t *testing.T) {
	fs := startFakeSet(t, 1)
	pool := NewPool(Options{})
	defer pool.Close()
	rs := NewReplicaSet(pool, ReplicaSetOptions{Name: "rs", Seeds: fs.hosts, MaxAwait: 50 * time.Millisecond})
	defer rs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := rs.Primary(ctx); err != nil {
		t.Fatal(err)
	}
	ping := func() time.Duration { return rs.Members()[0].PingTime }
	time.Sleep(300 * time.Millisecond) // several 50 ms awaitable hellos
	if p := ping(); p <= 0 || p > 20*time.Millisecond {
		t.Fatalf("round trip %v: the awaitable hellos' waits were counted", p)
	}
	fs.delay.Store(int64(40 * time.Millisecond))
	if !waitFor(3*time.Second, func() bool { return ping() >= 25*time.Millisecond }) {
		t.Fatalf("round trip %v after the member became 40 ms slow", ping())
	}
	if fs.awaits.Load() == 0 {
		t.Fatal("no awaitable hello: the probe was not what measured")
	}
}
