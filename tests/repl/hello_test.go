package repl

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/relaydb/relaydb/internal/cluster"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestHelloFields checks what SDAM reads from hello on every member of a
// set with two electable members, a hidden member, a read-only member and
// an arbiter (config order m0 m1 data, m2 hidden, m3 read-only, m4
// arbiter): hosts holds the electable members, passives the visible
// priority-0 one, arbiters the arbiter, and the hidden member is in none.
func TestHelloFields(t *testing.T) {
	c := upSet(t, cluster.Spec{Data: 2, Hidden: 1, ReadOnly: 1, Arbiter: true})
	ms := c.Members()
	p := primary(t, c, 10*time.Second)
	want := wantLists{
		hosts:    sorted(ms[0].Host, ms[1].Host),
		passives: sorted(ms[3].Host),
		arbiters: sorted(ms[4].Host),
	}
	for _, m := range ms {
		t.Run(m.Name+"_"+string(m.Role), func(t *testing.T) {
			// Members learn the primary through heartbeats: poll, bounded.
			eventually(t, 5*time.Second, "hello on "+m.Name, func() error {
				ctx, cancel := ctxT(3 * time.Second)
				defer cancel()
				h, err := c.Hello(ctx, m)
				if err != nil {
					return err
				}
				return checkHello(h, m, p, c.Spec().Name, want)
			})
		})
	}
}

type wantLists struct{ hosts, passives, arbiters []string }

func sorted(s ...string) []string { slices.Sort(s); return s }

// checkHello compares one member's hello with the topology.
func checkHello(h cluster.HelloReply, m, p *cluster.Member, set string, want wantLists) error {
	isPrimary := m == p
	checks := []struct {
		what      string
		got, want any
	}{
		{"setName", h.SetName, set},
		{"me", h.Me, m.Host},
		{"primary", h.Primary, p.Host},
		{"hosts", sorted(h.Hosts...), want.hosts},
		{"passives", sorted(h.Passives...), want.passives},
		{"arbiters", sorted(h.Arbiters...), want.arbiters},
		{"isWritablePrimary", h.IsWritablePrimary, isPrimary},
		{"secondary", h.Secondary, !isPrimary && m.Role != cluster.RoleArbiter},
		{"arbiterOnly", h.ArbiterOnly, m.Role == cluster.RoleArbiter},
		{"hidden", h.Hidden, m.Role == cluster.RoleHidden},
		{"passive (priority 0, not arbiter)", h.Passive, m.Priority == 0 && m.Role != cluster.RoleArbiter},
		{"setVersion >= 1", h.SetVersion >= 1, true},
		{"electionId set on the primary", h.ElectionID != bson.ObjectID{}, isPrimary},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			return fmt.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	return nil
}
