package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// shardedFile is the sharded cluster's record inside ShardedSpec.Dir (the
// replica sets keep their own cluster.json in their directories).
const shardedFile = "sharded.json"

// routers is a Cluster over the routers alone, to reuse spawn, ping and
// the clients; it is never saved.
func (sc *Sharded) routers() *Cluster {
	// The config servers' admin user exists before any router starts.
	return newCluster(Spec{Name: "routers", Dir: sc.spec.Dir, Bin: sc.spec.Bin, DieWithParent: sc.spec.DieWithParent,
		Secrets: sc.spec.Secrets, AdminReady: sc.spec.Auth}, sc.Routers)
}

// startRouters starts the routers and waits until each answers ping.
func (sc *Sharded) startRouters(ctx context.Context) error {
	base := 0
	if sc.spec.BasePort > 0 {
		base = sc.spec.BasePort
		for _, p := range sc.spec.parts() {
			base += p.Count()
		}
	}
	ports, err := pickPorts(base, sc.spec.Routers)
	if err != nil {
		return err
	}
	for i, port := range ports {
		name := "router" + strconv.Itoa(i)
		dir := filepath.Join(sc.spec.Dir, name)
		m := &Member{MemberSpec: MemberSpec{Name: name, Role: RoleRouter}, Port: port, Host: Host(port),
			DBPath: dir, LogPath: filepath.Join(dir, "relaydb.log")}
		m.Args = append([]string{"router", "--configdb", sc.ConfigDB(), "--port", strconv.Itoa(port),
			"--bind_ip", "127.0.0.1", "--logpath", m.LogPath, "--logappend"}, sc.spec.ExtraRouterArgs()...)
		sc.Routers = append(sc.Routers, m)
	}
	rc := sc.routers()
	for _, m := range sc.Routers {
		if err := rc.spawn(m); err != nil {
			return err
		}
	}
	defer rc.closeClients()
	for _, m := range sc.Routers {
		if err := rc.waitPing(ctx, m, startTimeout(sc.spec.StartTimeout)); err != nil {
			return err
		}
	}
	return nil
}

// ExtraRouterArgs are appended to every router's arguments: the key file
// and TLS flags of a secured cluster.
func (s ShardedSpec) ExtraRouterArgs() []string { return s.Secrets.Args() }

func startTimeout(d time.Duration) time.Duration {
	if d == 0 {
		return (Spec{}).withDefaults().StartTimeout
	}
	return d
}

// addShards runs addShard for every shard through the first router.
func (sc *Sharded) addShards(ctx context.Context) error {
	rc := sc.routers()
	defer rc.closeClients()
	for _, sh := range sc.Shards {
		cmd := bson.D{{Key: "addShard", Value: seedList(sh)}, {Key: "name", Value: sh.spec.Name}}
		if err := rc.RunAdmin(ctx, sc.Routers[0], cmd, nil); err != nil {
			return fmt.Errorf("cluster: addShard %s: %w", sh.spec.Name, err)
		}
	}
	return nil
}

// shardedState is the JSON form of a sharded cluster.
type shardedState struct {
	Spec    ShardedSpec
	URI     string
	Routers []*Member
}

func (sc *Sharded) save() error {
	b, err := json.MarshalIndent(shardedState{Spec: sc.spec, URI: sc.URI(), Routers: sc.Routers}, "", "  ")
	if err != nil {
		return fmt.Errorf("cluster: encode %s: %w", shardedFile, err)
	}
	path := filepath.Join(sc.spec.Dir, shardedFile)
	if err := os.WriteFile(path+".tmp", append(b, '\n'), 0o600); err != nil { // may hold the admin's password
		return fmt.Errorf("cluster: write %s: %w", path, err)
	}
	return os.Rename(path+".tmp", path)
}

// IsSharded reports whether dir holds a sharded cluster's record.
func IsSharded(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, shardedFile))
	return err == nil
}

// LoadSharded reads the sharded cluster recorded in dir by UpSharded.
func LoadSharded(dir string) (*Sharded, error) {
	b, err := os.ReadFile(filepath.Join(dir, shardedFile))
	if err != nil {
		return nil, fmt.Errorf("cluster: no sharded cluster in %s: %w", dir, err)
	}
	var st shardedState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("cluster: decode %s: %w", shardedFile, err)
	}
	st.Spec.Dir = dir
	sc := &Sharded{spec: st.Spec, Routers: st.Routers}
	for _, p := range st.Spec.parts() {
		c, err := Load(p.Dir)
		if err != nil {
			return nil, err
		}
		if p.Name == ConfigSetName {
			sc.Config = c
		} else {
			sc.Shards = append(sc.Shards, c)
		}
	}
	return sc, nil
}

func (sc *Sharded) anyAlive() bool {
	for _, r := range sc.Routers {
		if alive(r.PID, r.DBPath) {
			return true
		}
	}
	for _, c := range sc.sets() {
		if c.anyAlive() {
			return true
		}
	}
	return false
}

func (sc *Sharded) sets() []*Cluster {
	var out []*Cluster
	if sc.Config != nil {
		out = append(out, sc.Config)
	}
	return append(out, sc.Shards...)
}

// Down stops the routers, then the shards and the config servers. It
// tries everything and returns the errors joined.
func (sc *Sharded) Down(ctx context.Context) error {
	var errs []error
	for _, r := range sc.Routers {
		if err := stop(ctx, r); err != nil {
			errs = append(errs, err)
		}
	}
	for i := len(sc.sets()) - 1; i >= 0; i-- {
		if err := sc.sets()[i].Down(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if len(sc.Routers) > 0 {
		if err := sc.save(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// RouterAlive reports whether router r's process is running.
func (sc *Sharded) RouterAlive(r *Member) bool { return alive(r.PID, r.DBPath) }
