package cluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Live topology changes of a local sharded cluster (`relaydb cluster
// add-shard` and `remove-shard`). The state file records them in the
// spec: ShardedSpec.Added (each added shard's name, members, arbiter and
// first port) and ShardedSpec.Removed (names, never reused), so parts()
// and LoadSharded see the cluster as it is now.

// AddedShard is a shard started by AddShard after up.
type AddedShard struct {
	Name     string
	Members  int  // electable data members
	Arbiter  bool // with an arbiter
	BasePort int  // first port; 0 = free ports
}

// addedParts are the replica sets of the added shards not removed since.
func (s ShardedSpec) addedParts() []Spec {
	var out []Spec
	for _, a := range s.Added {
		if !slices.Contains(s.Removed, a.Name) {
			out = append(out, s.addedPart(a))
		}
	}
	return out
}

func (s ShardedSpec) addedPart(a AddedShard) Spec {
	p := Spec{Name: a.Name, Dir: filepath.Join(s.Dir, a.Name), Data: a.Members, Arbiter: a.Arbiter, BasePort: a.BasePort,
		Bin: s.Bin, ExtraArgs: append([]string{"--shardsvr"}, s.ExtraArgs...), StartTimeout: s.StartTimeout,
		PrimaryTimeout: s.PrimaryTimeout, DieWithParent: s.DieWithParent}
	s.secure(&p)
	return p
}

// nextShard is the shard AddShard starts: the next name never used
// (sh<up's shards + shards added>), members and arbiter as up's shards
// unless given (members 0 and arbiter nil), and, when the cluster was
// laid out from a base port, the ports after the highest one in use.
func nextShard(s ShardedSpec, usedPorts []int, members int, arbiter *bool) AddedShard {
	s = s.withDefaults()
	a := AddedShard{Name: ShardName(s.Shards + len(s.Added)), Members: s.ShardMembers, Arbiter: s.ShardArbiter}
	if members > 0 {
		a.Members = members
	}
	if arbiter != nil {
		a.Arbiter = *arbiter
	}
	if s.BasePort > 0 && len(usedPorts) > 0 {
		a.BasePort = slices.Max(usedPorts) + 1
	}
	return a
}

// withRemoved records that shard name was removed.
func withRemoved(s ShardedSpec, name string) (ShardedSpec, error) {
	names := make([]string, 0, len(s.parts()))
	for _, p := range s.parts()[1:] {
		names = append(names, p.Name)
	}
	switch {
	case !slices.Contains(names, name):
		return s, fmt.Errorf("cluster: no shard %q (shards: %v)", name, names)
	case len(names) == 1:
		return s, fmt.Errorf("cluster: %s is the last shard", name)
	}
	s.Removed = append(slices.Clone(s.Removed), name)
	return s, nil
}

// usedPorts lists every member's and router's port.
func (sc *Sharded) usedPorts() []int {
	var out []int
	for _, r := range sc.Routers {
		out = append(out, r.Port)
	}
	for _, c := range sc.sets() {
		for _, m := range c.Members() {
			out = append(out, m.Port)
		}
	}
	return out
}

// AddShard starts a new shard replica set (members 0 and arbiter nil:
// as up's shards), records it in the state file and adds it through a
// router. If addShard fails the new set is stopped and forgotten.
func (sc *Sharded) AddShard(ctx context.Context, members int, arbiter *bool) (*Cluster, error) {
	a := nextShard(sc.spec, sc.usedPorts(), members, arbiter)
	p := sc.spec.addedPart(a)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c, err := Up(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("cluster: starting shard %s: %w", a.Name, err)
	}
	sc.spec.Added = append(sc.spec.Added, a)
	sc.Shards = append(sc.Shards, c)
	if err := sc.save(); err != nil {
		return c, err
	}
	cmd := bson.D{{Key: "addShard", Value: seedList(c)}, {Key: "name", Value: a.Name}}
	if err := sc.runRouter(ctx, cmd, nil); err != nil {
		sc.spec.Added = sc.spec.Added[:len(sc.spec.Added)-1]
		sc.Shards = sc.Shards[:len(sc.Shards)-1]
		return nil, errors.Join(fmt.Errorf("cluster: addShard %s: %w", a.Name, err), c.Down(context.Background()), sc.save())
	}
	return c, nil
}

// routerCommandTimeout bounds one admin command through a router
// (movePrimary copies a database).
const routerCommandTimeout = 10 * time.Minute

// runRouter runs an admin command on the first router that is running.
func (sc *Sharded) runRouter(ctx context.Context, cmd bson.D, out any) error {
	return sc.runRouterDB(ctx, "admin", cmd, out)
}

// runRouterDB runs cmd on db through the first router that is running.
func (sc *Sharded) runRouterDB(ctx context.Context, db string, cmd bson.D, out any) error {
	rc := sc.routers()
	defer rc.closeClients()
	for _, r := range sc.Routers {
		if !sc.RouterAlive(r) {
			continue
		}
		cl, err := rc.Client(r)
		if err != nil {
			return err
		}
		return runOn(ctx, cl.Database(db), cmd, out)
	}
	return errors.New("cluster: no router is running")
}

func runOn(ctx context.Context, db *mongo.Database, cmd bson.D, out any) error {
	ctx, cancel := context.WithTimeout(ctx, routerCommandTimeout)
	defer cancel()
	res := db.RunCommand(ctx, cmd)
	if out == nil {
		return res.Err()
	}
	return res.Decode(out)
}
