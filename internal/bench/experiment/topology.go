package experiment

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/cluster"
)

// Set is a started replica set the runner measures; *clusterSet (a local
// cluster) is the real one, tests use doubles.
type Set interface {
	// URI is the replicaSet connection string (no write concern).
	URI() string
	// ReplStatus is replSetGetStatus as the current primary reports it.
	ReplStatus(ctx context.Context) (ReplStatus, error)
	// Down stops every member.
	Down(ctx context.Context) error
}

// Starter starts the set of group g in dir.
type Starter func(ctx context.Context, g Group, dir string) (Set, error)

// ClusterStarter starts g's topology with cluster.Up from cfg.Bin,
// secured as cfg.Auth/TLS say. The simulated latency goes to every member
// as --simulatedLatency; with cfg.Spread each member also gets its delay
// towards every peer (cluster.Spec.MemberArgs).
func ClusterStarter(cfg Config) Starter {
	bin, spread := cfg.Bin, cfg.Spread
	return func(ctx context.Context, g Group, dir string) (Set, error) {
		t, err := TopologyFor(g.Nodes)
		if err != nil {
			return nil, err
		}
		spec, err := t.Spec(g.Mode)
		if err != nil {
			return nil, err
		}
		spec.Dir, spec.Bin, spec.DieWithParent = dir, bin, true
		spec.Auth, spec.TLS = cfg.Auth, cfg.TLS
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("experiment: %w", err)
		}
		base := time.Duration(g.LatencyUs) * time.Microsecond
		if err := applyLatency(&spec, base, spread); err != nil {
			return nil, err
		}
		c, err := cluster.Up(ctx, spec)
		if err != nil {
			return nil, fmt.Errorf("experiment: start %d-member set (chaining %s): %w", g.Nodes, g.Mode, err)
		}
		return &clusterSet{c: c}, nil
	}
}

// applyLatency adds the delay arguments to spec.
func applyLatency(spec *cluster.Spec, base time.Duration, spread bool) error {
	if base <= 0 {
		return nil
	}
	if !spread {
		spec.ExtraArgs = append(spec.ExtraArgs, "--simulatedLatency", DurationArg(base))
		return nil
	}
	if spec.BasePort == 0 {
		port, err := freePortRange(len(spec.Members()))
		if err != nil {
			return err
		}
		spec.BasePort = port
	}
	members := spec.Members()
	spec.MemberArgs = make(map[string][]string, len(members))
	for i, m := range members {
		spec.MemberArgs[m.Name] = []string{"--simulatedLatency", DurationArg(base),
			"--simulatedLatencyTo", peerDelays(i, len(members), spec.BasePort, base)}
	}
	return nil
}

// peerDelays is member i's --simulatedLatencyTo value: its one-way delay
// (see PairDelay) towards every other member, member j listening on
// basePort+j.
func peerDelays(i, members, basePort int, base time.Duration) string {
	var peers []string
	for j := 0; j < members; j++ {
		if j != i {
			peers = append(peers, fmt.Sprintf("127.0.0.1:%d=%s", basePort+j, DurationArg(PairDelay(base, i, j))))
		}
	}
	return strings.Join(peers, ",")
}

// freePortRange finds n consecutive free loopback ports.
func freePortRange(n int) (int, error) {
	for attempt := 0; attempt < 50; attempt++ {
		base := 20000 + rand.IntN(40000)
		ok := true
		var ls []net.Listener
		for i := 0; i < n && ok; i++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base+i))
			if err != nil {
				ok = false
				break
			}
			ls = append(ls, l)
		}
		for _, l := range ls {
			l.Close()
		}
		if ok {
			return base, nil
		}
	}
	return 0, fmt.Errorf("experiment: no range of %d free ports", n)
}

// DurationArg formats d for a command line in ASCII: "150us", "1ms".
func DurationArg(d time.Duration) string {
	if d%time.Millisecond == 0 {
		return fmt.Sprintf("%dms", d/time.Millisecond)
	}
	if d%time.Microsecond == 0 {
		return fmt.Sprintf("%dus", d/time.Microsecond)
	}
	return fmt.Sprintf("%dns", d.Nanoseconds())
}

// clusterSet is a Set over a local cluster; it remembers the primary and
// looks it up again when it stops answering as one.
type clusterSet struct {
	c       *cluster.Cluster
	mu      sync.Mutex
	primary *cluster.Member // REQUIRES: mu
}

func (s *clusterSet) URI() string { return s.c.URI() }

func (s *clusterSet) Down(ctx context.Context) error { return s.c.Down(ctx) }

// rsReply is the part of replSetGetStatus the experiment reads.
type rsReply struct {
	Members []struct {
		Name       string `bson:"name"`
		StateStr   string `bson:"stateStr"`
		SyncSource string `bson:"syncSourceHost"`
		Optime     struct {
			TS bson.Timestamp `bson:"ts"`
		} `bson:"optime"`
	} `bson:"members"`
}

func (s *clusterSet) ReplStatus(ctx context.Context) (ReplStatus, error) {
	p, err := s.currentPrimary(ctx)
	if err != nil {
		return ReplStatus{}, err
	}
	var rs rsReply
	if err := s.c.RunAdmin(ctx, p, bson.D{{Key: "replSetGetStatus", Value: 1}}, &rs); err != nil {
		s.forgetPrimary()
		return ReplStatus{}, fmt.Errorf("replSetGetStatus on %s: %w", p.Name, err)
	}
	out := s.named(rs)
	if !isPrimary(out, p.Host) {
		s.forgetPrimary()
	}
	return out, nil
}

func (s *clusterSet) currentPrimary(ctx context.Context) (*cluster.Member, error) {
	s.mu.Lock()
	p := s.primary
	s.mu.Unlock()
	if p != nil {
		return p, nil
	}
	p, err := s.c.Primary(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.primary = p
	s.mu.Unlock()
	return p, nil
}

func (s *clusterSet) forgetPrimary() {
	s.mu.Lock()
	s.primary = nil
	s.mu.Unlock()
}

// named maps the reply's hosts to member names, in the cluster's order.
func (s *clusterSet) named(rs rsReply) ReplStatus {
	byHost := map[string]int{}
	for i, m := range rs.Members {
		byHost[m.Name] = i
	}
	var out ReplStatus
	for _, m := range s.c.Members() {
		ms := MemberState{Name: m.Name, Host: m.Host, State: "(not in replSetGetStatus)"}
		if i, ok := byHost[m.Host]; ok {
			r := rs.Members[i]
			ms.State, ms.SyncSource, ms.Optime = r.StateStr, r.SyncSource, r.Optime.TS
		}
		out.Members = append(out.Members, ms)
	}
	return out
}

func isPrimary(st ReplStatus, host string) bool {
	for _, m := range st.Members {
		if m.Host == host {
			return m.State == "PRIMARY"
		}
	}
	return false
}
