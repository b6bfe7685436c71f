package cluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ShardedSpec describes a local sharded cluster: a config server replica
// set, Shards shard replica sets and Routers routers, all on 127.0.0.1.
// Zero values mean the default written on each field.
type ShardedSpec struct {
	Dir           string // cluster directory; required
	Shards        int    // shard replica sets; required, >= 1
	ShardMembers  int    // electable data members per shard; default 3
	ShardArbiter  bool   // add an arbiter to every shard
	ConfigMembers int    // config server members; default 3
	Routers       int    // routers; default 1
	BasePort      int    // first port; the config set, shards and routers take consecutive ranges; 0 = free ports
	Bin           string // relaydb binary; default the running executable
	ExtraArgs     []string
	// StartTimeout and PrimaryTimeout are each part's (see Spec).
	StartTimeout   time.Duration `json:",omitempty"`
	PrimaryTimeout time.Duration `json:",omitempty"`
	DieWithParent  bool          `json:",omitempty"`
	// Added and Removed record `relaydb cluster add-shard/remove-shard`
	// (topology.go): the shards added after up, and the names of the
	// shards removed (never reused).
	Added   []AddedShard `json:",omitempty"`
	Removed []string     `json:",omitempty"`
	// Auth, TLS and Secrets as Spec's: one key file, admin password and CA
	// for every replica set and router.
	Auth    bool     `json:",omitempty"`
	TLS     bool     `json:",omitempty"`
	Secrets *Secrets `json:",omitempty"`
}

func (s ShardedSpec) withDefaults() ShardedSpec {
	if s.ShardMembers == 0 {
		s.ShardMembers = 3
	}
	if s.ConfigMembers == 0 {
		s.ConfigMembers = 3
	}
	if s.Routers == 0 {
		s.Routers = 1
	}
	return s
}

// Validate reports the first reason s cannot be started, or nil.
func (s ShardedSpec) Validate() error {
	s = s.withDefaults()
	switch {
	case s.Dir == "":
		return errors.New("cluster: a directory (--dir) is required")
	case s.Shards < 1:
		return fmt.Errorf("cluster: --shards must be at least 1, got %d", s.Shards)
	case s.ShardMembers < 1 || s.ConfigMembers < 1 || s.Routers < 1:
		return errors.New("cluster: --shard-members, --config-members and --routers must be at least 1")
	case s.ShardMembers > MaxVoters || s.ConfigMembers > MaxVoters:
		return fmt.Errorf("cluster: at most %d members per replica set here", MaxVoters)
	}
	for _, p := range s.parts() {
		if err := p.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// parts are the replica sets of s: the config servers, then the shards.
func (s ShardedSpec) parts() []Spec {
	s = s.withDefaults()
	next := s.BasePort
	part := func(name, dir string, data int, arbiter bool, role string) Spec {
		p := Spec{Name: name, Dir: filepath.Join(s.Dir, dir), Data: data, Arbiter: arbiter, BasePort: next,
			Bin: s.Bin, ExtraArgs: append([]string{role}, s.ExtraArgs...), StartTimeout: s.StartTimeout,
			PrimaryTimeout: s.PrimaryTimeout, DieWithParent: s.DieWithParent}
		s.secure(&p)
		if next > 0 {
			next += p.Count()
		}
		return p
	}
	out := []Spec{part(ConfigSetName, "config", s.ConfigMembers, false, "--configsvr")}
	for i := range s.Shards {
		p := part(ShardName(i), ShardName(i), s.ShardMembers, s.ShardArbiter, "--shardsvr")
		if !slices.Contains(s.Removed, p.Name) {
			out = append(out, p)
		}
	}
	out = append(out, s.addedParts()...)
	total := 0
	for _, p := range out {
		total += p.Count()
	}
	for i := range out {
		out[i].LocalMembers = total // every member shares the machine's cache budget
	}
	return out
}

// ConfigSetName is the config server replica set's name.
const ConfigSetName = "cfg"

// ShardName is the replica set name (and shard id) of shard i.
func ShardName(i int) string { return "sh" + strconv.Itoa(i) }

// Sharded is a local sharded cluster started by UpSharded or found by
// LoadSharded.
type Sharded struct {
	spec    ShardedSpec
	Config  *Cluster
	Shards  []*Cluster
	Routers []*Member // Role "router"; DBPath is the router's directory
}

// RoleRouter marks a router in Sharded.Routers.
const RoleRouter Role = "router"

// UpSharded starts the config servers and the shards (each a replica set
// that elects a primary), then the routers, adds every shard through the
// first router and records the cluster in DIR/sharded.json. On error it
// stops what it started.
func UpSharded(ctx context.Context, s ShardedSpec) (*Sharded, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.withDefaults()
	paths := Spec{Dir: s.Dir, Bin: s.Bin}
	if err := resolvePaths(&paths); err != nil {
		return nil, err
	}
	s.Dir, s.Bin = paths.Dir, paths.Bin
	if (s.Auth || s.TLS) && s.Secrets == nil {
		sec, err := NewSecrets(s.Dir, s.Auth, s.TLS)
		if err != nil {
			return nil, err
		}
		s.Secrets = sec
	}
	if old, err := LoadSharded(s.Dir); err == nil && old.anyAlive() {
		return nil, fmt.Errorf("cluster: %s already holds a running cluster; run `relaydb cluster down --dir %s` first", s.Dir, s.Dir)
	}
	sc := &Sharded{spec: s}
	if err := sc.startSets(ctx); err != nil {
		_ = sc.Down(context.Background())
		return nil, err
	}
	if err := sc.startRouters(ctx); err != nil {
		_ = sc.Down(context.Background())
		return nil, err
	}
	if err := sc.addShards(ctx); err != nil {
		_ = sc.Down(context.Background())
		return nil, err
	}
	return sc, sc.save()
}

// startSets starts every replica set concurrently and waits for each
// primary.
func (sc *Sharded) startSets(ctx context.Context) error {
	parts := sc.spec.parts()
	sets := make([]*Cluster, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sets[i], errs[i] = Up(ctx, p)
		}()
	}
	wg.Wait()
	for _, c := range sets {
		if c == nil {
			continue
		}
		if c.spec.Name == ConfigSetName {
			sc.Config = c
		} else {
			sc.Shards = append(sc.Shards, c)
		}
	}
	return errors.Join(errs...)
}

// ConfigDB is the routers' --configdb: cfg/host:port,...
func (sc *Sharded) ConfigDB() string { return seedList(sc.Config) }

// seedList is set/host:port,... over c's data members.
func seedList(c *Cluster) string {
	var hosts []string
	for _, m := range c.members {
		if m.Role == RoleData {
			hosts = append(hosts, m.Host)
		}
	}
	return c.spec.Name + "/" + strings.Join(hosts, ",")
}

// URI is the connection string over every router.
func (sc *Sharded) URI() string {
	var hosts []string
	for _, r := range sc.Routers {
		hosts = append(hosts, r.Host)
	}
	return sc.spec.Secrets.URI("mongodb://"+strings.Join(hosts, ",")+"/", true)
}

// Spec is the cluster's spec with defaults applied.
func (sc *Sharded) Spec() ShardedSpec { return sc.spec }
