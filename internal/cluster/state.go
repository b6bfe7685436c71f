package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// stateFile is the name of the cluster record inside Spec.Dir.
const stateFile = "cluster.json"

// Member is one started member as recorded in cluster.json.
type Member struct {
	MemberSpec
	Port    int
	Host    string
	PID     int      // 0 when stopped by this package
	DBPath  string   // DIR/<name>/data
	LogPath string   // DIR/<name>/relaydb.log
	Args    []string // serve arguments, reused by Restart
}

// state is the JSON form of a cluster.
type state struct {
	Spec    Spec
	URI     string
	Members []*Member
}

func (c *Cluster) save() error {
	c.mu.Lock()
	st := state{Spec: c.spec, URI: c.URI(), Members: c.members}
	b, err := json.MarshalIndent(st, "", "  ")
	c.mu.Unlock()
	if err != nil {
		return fmt.Errorf("cluster: encode %s: %w", stateFile, err)
	}
	path := filepath.Join(c.spec.Dir, stateFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil { // may hold the admin's password
		return fmt.Errorf("cluster: write %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cluster: rename %s: %w", tmp, err)
	}
	return nil
}

// Load reads the cluster recorded in dir by an earlier Up.
func Load(dir string) (*Cluster, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cluster: no cluster in %s (no %s; run `relaydb cluster up` first)", dir, stateFile)
	}
	if err != nil {
		return nil, fmt.Errorf("cluster: read %s: %w", stateFile, err)
	}
	var st state
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("cluster: decode %s: %w", filepath.Join(dir, stateFile), err)
	}
	st.Spec.Dir = dir
	return newCluster(st.Spec, st.Members), nil
}
