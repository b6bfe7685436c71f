package config

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Cluster roles of a data node (Serve.ClusterRole), as mongod's
// sharding.clusterRole.
const (
	// RoleConfigServer is a member of the config server replica set
	// (mongod --configsvr): it holds the cluster's `config` database.
	RoleConfigServer = "configsvr"
	// RoleShardServer is a member of a shard's replica set
	// (mongod --shardsvr).
	RoleShardServer = "shardsvr"
)

func init() {
	serveOptions["sharding.clusterRole"] = clusterRoleOpt
}

// bindShardingFlags registers --configsvr and --shardsvr on fs. They are
// exclusive; either requires --replSet (checked by Validate).
func bindShardingFlags(fs *flag.FlagSet, s *Serve) {
	var fromFlag string
	set := func(role string) func(string) error {
		return func(string) error {
			if fromFlag != "" && fromFlag != role {
				return errors.New("--configsvr and --shardsvr are mutually exclusive")
			}
			fromFlag, s.ClusterRole = role, role
			return nil
		}
	}
	fs.BoolFunc("configsvr", "run as a member of the config server replica set (needs --replSet)", set(RoleConfigServer))
	fs.BoolFunc("shardsvr", "run as a member of a shard replica set (needs --replSet)", set(RoleShardServer))
}

func clusterRoleOpt(n *yaml.Node, s *Serve) error {
	return decodeScalar(n, "!!str", &s.ClusterRole)
}

// validateSharding reports an unknown cluster role or a role without a
// replica set (mongod: "Cannot start a configsvr/shardsvr as a standalone").
func (s *Serve) validateSharding() error {
	switch s.ClusterRole {
	case "":
		return nil
	case RoleConfigServer, RoleShardServer:
	default:
		return fmt.Errorf("sharding.clusterRole %q is invalid (configsvr or shardsvr)", s.ClusterRole)
	}
	if s.ReplSet == "" {
		return fmt.Errorf("a %s must be a replica set member: --%s needs --replSet", s.ClusterRole, s.ClusterRole)
	}
	return nil
}

// ParseConfigDB splits a config server connection string
// "setName/host:port[,host:port...]" (mongos's --configdb). The set name
// and at least one host are required: config servers are a replica set.
func ParseConfigDB(v string) (setName string, hosts []string, err error) {
	setName, list, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok || setName == "" || strings.ContainsAny(setName, ", \t") {
		return "", nil, fmt.Errorf("configdb %q must be setName/host:port[,host:port...]", v)
	}
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h == "" {
			continue
		}
		if !strings.Contains(h, ":") {
			h += ":27019" // the config server's default port, as mongod --configsvr
		}
		hosts = append(hosts, h)
	}
	if len(hosts) == 0 {
		return "", nil, fmt.Errorf("configdb %q names no host", v)
	}
	return setName, hosts, nil
}
