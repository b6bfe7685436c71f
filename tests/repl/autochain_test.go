package repl

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// TestAutoChainingFollowsWriteConcern: in chainingMode "auto" (the default
// for new sets) a 5-voter set under w:1 writes has one member pulling from
// the primary and the rest chained below it; under w:"majority" writes
// every voter pulls from the primary (4; the acknowledgement is the 2nd
// fastest of them); when the majority writers stop, it goes back to one.
func TestAutoChainingFollowsWriteConcern(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 5})
	p := primary(t, c, 20*time.Second)
	phase := func(w *writeconcern.WriteConcern, wantDirect int) {
		t.Helper()
		stop := startWriter(t, c, w)
		defer stop()
		eventually(t, 15*time.Second, fmt.Sprintf("%d member(s) pulling from the primary", wantDirect), func() error {
			return checkDirect(c, p, wantDirect)
		})
	}
	phase(writeconcern.W1(), 1)
	phase(writeconcern.Majority(), 4)
	phase(writeconcern.W1(), 1)
}

// startWriter inserts with w in a loop (bounded to a minute) until the
// returned stop is called.
func startWriter(t *testing.T, c *cluster.Cluster, w *writeconcern.WriteConcern) (stop func()) {
	cl := connectSet(t, c)
	coll := collWC(cl, w)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil && i < 200_000; i++ {
			_, _ = coll.InsertOne(ctx, bson.D{{Key: "n", Value: i}})
		}
	}()
	return func() { cancel(); wg.Wait() }
}

// checkDirect reports an error unless every secondary has a sync source
// and exactly want of them pull from p.
func checkDirect(c *cluster.Cluster, p *cluster.Member, want int) error {
	direct, tree := 0, ""
	for _, m := range secondaries(c, p) {
		src, err := sourceHost(c, m)
		if err != nil {
			return err
		}
		tree += fmt.Sprintf(" %s<-%s", src, m.Host)
		switch src {
		case "":
			return fmt.Errorf("%s has no sync source (tree:%s)", m.Host, tree)
		case p.Host:
			direct++
		}
	}
	if direct != want {
		return fmt.Errorf("%d pull from the primary, want %d (tree:%s)", direct, want, tree)
	}
	return nil
}

// TestAutoChainingFeeder: under w:"majority" writes a set of 3 voters and
// 3 non-voters has both voting secondaries and one non-voter (the feeder)
// pulling from the primary, and the other two non-voters chained below the
// feeder, not below a voter; under w:1 one member pulls from the primary.
func TestAutoChainingFeeder(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 3, ReadOnly: 3})
	p := primary(t, c, 20*time.Second)
	stop := startWriter(t, c, writeconcern.Majority())
	eventually(t, 15*time.Second, "2 voters and a feeder pulling from the primary, no voter forwarding", func() error {
		if err := checkDirect(c, p, 3); err != nil {
			return err
		}
		return checkVotersForwardNothing(c, p)
	})
	stop()
	stop = startWriter(t, c, writeconcern.W1())
	defer stop()
	eventually(t, 15*time.Second, "1 member pulling from the primary", func() error {
		return checkDirect(c, p, 1)
	})
}

// checkVotersForwardNothing reports an error when a secondary pulls from a
// voting secondary.
func checkVotersForwardNothing(c *cluster.Cluster, p *cluster.Member) error {
	voters := map[string]bool{}
	for _, m := range secondaries(c, p) {
		if m.Role == cluster.RoleData {
			voters[m.Host] = true
		}
	}
	for _, m := range secondaries(c, p) {
		src, err := sourceHost(c, m)
		if err != nil {
			return err
		}
		if voters[src] {
			return fmt.Errorf("%s pulls from voter %s", m.Host, src)
		}
	}
	return nil
}

// sourceHost is m's own syncSourceHost, asked with a 5 s bound.
func sourceHost(c *cluster.Cluster, m *cluster.Member) (string, error) {
	ctx, cancel := ctxT(5 * time.Second)
	defer cancel()
	return syncSourceHost(ctx, c, m)
}
