package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Cluster is a local replica set started by Up or found by Load.
type Cluster struct {
	spec Spec

	mu      sync.Mutex
	members []*Member                // REQUIRES: mu for PID
	clients map[string]*mongo.Client // REQUIRES: mu; direct clients by member name
}

func newCluster(s Spec, members []*Member) *Cluster {
	return &Cluster{spec: s, members: members, clients: map[string]*mongo.Client{}}
}

// Up starts the members of s, initiates the set and waits for a primary.
// On error after processes were started it stops them again.
func Up(ctx context.Context, s Spec) (*Cluster, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	if err := resolvePaths(&s); err != nil {
		return nil, err
	}
	if err := checkDirFree(s); err != nil {
		return nil, err
	}
	if (s.Auth || s.TLS) && s.Secrets == nil {
		sec, err := NewSecrets(s.Dir, s.Auth, s.TLS)
		if err != nil {
			return nil, err
		}
		s.Secrets = sec
	}
	members, err := layout(s)
	if err != nil {
		return nil, err
	}
	c := newCluster(s, members)
	if err := c.start(ctx); err != nil {
		_ = c.Down(context.Background())
		return nil, err
	}
	return c, nil
}

// start spawns every member, initiates the set and waits for a primary.
func (c *Cluster) start(ctx context.Context) error {
	for _, m := range c.members {
		if err := c.spawn(m); err != nil {
			return err
		}
	}
	if err := c.save(); err != nil {
		return err
	}
	for _, m := range c.members {
		if err := c.waitPing(ctx, m, c.spec.StartTimeout); err != nil {
			return err
		}
	}
	if err := c.initiate(ctx); err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, c.spec.PrimaryTimeout)
	defer cancel()
	p, err := c.WaitPrimary(pctx)
	if err != nil {
		return fmt.Errorf("cluster: no primary within %v after replSetInitiate: %w", c.spec.PrimaryTimeout, err)
	}
	if err := c.createAdmin(ctx, p); err != nil {
		return err
	}
	return c.save()
}

// layout assigns ports, directories and arguments to the members of s.
func layout(s Spec) ([]*Member, error) {
	specs := s.Members()
	ports, err := pickPorts(s.BasePort, len(specs))
	if err != nil {
		return nil, err
	}
	out := make([]*Member, len(specs))
	for i, ms := range specs {
		dir := filepath.Join(s.Dir, ms.Name)
		m := &Member{MemberSpec: ms, Port: ports[i], Host: Host(ports[i]),
			DBPath: filepath.Join(dir, "data"), LogPath: filepath.Join(dir, "relaydb.log")}
		m.Args = serveArgs(s, m)
		out[i] = m
	}
	return out, nil
}

// pickPorts returns n consecutive ports from base, or n free ports when
// base is 0. Either way each is checked to be free now.
func pickPorts(base, n int) ([]int, error) {
	ports := make([]int, 0, n)
	var hold []net.Listener
	defer func() {
		for _, l := range hold {
			l.Close()
		}
	}()
	for i := 0; i < n; i++ {
		addr := "127.0.0.1:0"
		if base > 0 {
			addr = Host(base + i)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("cluster: port for member m%d: %w", i, err)
		}
		hold = append(hold, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// resolvePaths makes s.Dir absolute (members and later commands may run
// elsewhere) and defaults s.Bin to the running executable.
func resolvePaths(s *Spec) error {
	dir, err := filepath.Abs(s.Dir)
	if err != nil {
		return fmt.Errorf("cluster: --dir %s: %w", s.Dir, err)
	}
	s.Dir = dir
	if s.Bin == "" {
		if s.Bin, err = os.Executable(); err != nil {
			return fmt.Errorf("cluster: cannot find the relaydb binary (use --bin): %w", err)
		}
	}
	return nil
}

// checkDirFree refuses a directory holding a running cluster or member
// data from an earlier one (its old config would make replSetInitiate
// fail).
func checkDirFree(s Spec) error {
	if old, err := Load(s.Dir); err == nil && old.anyAlive() {
		return fmt.Errorf("cluster: %s already holds a running cluster; run `relaydb cluster down --dir %s` first", s.Dir, s.Dir)
	}
	for _, m := range s.Members() {
		entries, err := os.ReadDir(filepath.Join(s.Dir, m.Name, "data"))
		if err == nil && len(entries) > 0 {
			return fmt.Errorf("cluster: %s already holds member data (%s); remove the directory or use another --dir",
				s.Dir, filepath.Join(s.Dir, m.Name, "data"))
		}
	}
	return nil
}

// Spec is the cluster's spec with defaults applied.
func (c *Cluster) Spec() Spec { return c.spec }

// Members returns the members in config order.
func (c *Cluster) Members() []*Member { return c.members }

// Member finds a member by name (m0, m1, ...).
func (c *Cluster) Member(name string) (*Member, error) {
	for _, m := range c.members {
		if m.Name == name {
			return m, nil
		}
	}
	return nil, fmt.Errorf("cluster: no member %q (members are m0..m%d)", name, len(c.members)-1)
}

// URI is the replicaSet connection string over the visible data members.
func (c *Cluster) URI() string {
	var hosts []string
	for _, m := range c.members {
		if m.Role == RoleData || m.Role == RoleReadOnly {
			hosts = append(hosts, m.Host)
		}
	}
	return c.spec.Secrets.URI(URIFor(c.spec.Name, hosts), true)
}

// Alive reports whether m's process is running.
func (c *Cluster) Alive(m *Member) bool {
	c.mu.Lock()
	pid := m.PID
	c.mu.Unlock()
	return alive(pid, m.DBPath)
}

func (c *Cluster) anyAlive() bool {
	for _, m := range c.members {
		if c.Alive(m) {
			return true
		}
	}
	return false
}

// Down stops every member (SIGTERM, bounded wait, SIGKILL) and closes the
// cluster's clients. It returns the first error but tries every member.
func (c *Cluster) Down(ctx context.Context) error {
	c.closeClients()
	var errs []error
	for _, m := range c.members {
		if err := stop(ctx, m); err != nil {
			errs = append(errs, err)
		}
	}
	if err := c.save(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// waitPing polls m with ping until it answers, its process exits or d
// passes.
func (c *Cluster) waitPing(ctx context.Context, m *Member, d time.Duration) error {
	deadline := time.Now().Add(d)
	var last error
	for time.Now().Before(deadline) {
		if !c.Alive(m) {
			return fmt.Errorf("cluster: %s exited during startup; see %s and %s", m.Name, m.LogPath, filepath.Join(filepath.Dir(m.LogPath), "stderr.log"))
		}
		if last = c.ping(ctx, m); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: waiting for %s: %w", m.Name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("cluster: %s (%s) did not answer ping within %v: %v", m.Name, m.Host, d, last)
}
