package spec

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// Env is what runOnRequirements are evaluated against.
type Env struct {
	Version  [3]int // from buildInfo, or $RELAYDB_SPEC_SERVER_VERSION
	Topology string // "single" for a standalone relaydb
	server   *mongo.Client
}

// DetectEnv asks the server for its version and topology.
func DetectEnv(ctx context.Context, c *mongo.Client, versionOverride string) (*Env, error) {
	env := &Env{Topology: "single", server: c}
	version := versionOverride
	if version == "" {
		var bi struct {
			Version string `bson:"version"`
		}
		if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
			return nil, fmt.Errorf("buildInfo: %w", err)
		}
		version = bi.Version
	}
	env.Version = parseVersion(version)
	var hello bson.D
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err == nil {
		if _, ok := lookup(hello, "setName"); ok {
			env.Topology = "replicaset"
		}
		if getString(hello, "msg") == "isdbgrid" {
			env.Topology = "sharded"
		}
	}
	return env, nil
}

// parseVersion reads "major.minor.patch" (missing parts are 0, suffixes
// such as "-rc0" are ignored).
func parseVersion(s string) [3]int {
	var v [3]int
	for i, part := range strings.SplitN(s, ".", 3) {
		end := 0
		for end < len(part) && part[end] >= '0' && part[end] <= '9' {
			end++
		}
		v[i], _ = strconv.Atoi(part[:end])
	}
	return v
}

func cmpVersion(a, b [3]int) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// satisfied reports whether any requirement holds (an empty list holds);
// otherwise it gives the reason of the first unmet one.
func (env *Env) satisfied(ctx context.Context, reqs []Requirement) (bool, string) {
	if len(reqs) == 0 {
		return true, ""
	}
	var reasons []string
	for _, r := range reqs {
		why := env.unmet(ctx, r)
		if why == "" {
			return true, ""
		}
		reasons = append(reasons, why)
	}
	return false, strings.Join(reasons, "; ")
}

// unmet returns "" if r holds, else why not.
func (env *Env) unmet(ctx context.Context, r Requirement) string {
	if r.MinServerVersion != "" && cmpVersion(env.Version, parseVersion(r.MinServerVersion)) < 0 {
		return "needs server >= " + r.MinServerVersion
	}
	if r.MaxServerVersion != "" && cmpVersion(env.Version, parseVersion(r.MaxServerVersion)) > 0 {
		return "needs server <= " + r.MaxServerVersion
	}
	if len(r.Topologies) > 0 && !contains(r.Topologies, env.Topology) {
		return "needs topology " + strings.Join(r.Topologies, "|")
	}
	if r.Serverless == "require" {
		return "needs serverless"
	}
	if r.Auth != nil && *r.Auth {
		return "needs auth"
	}
	if r.AuthMechanism != "" {
		return "needs auth mechanism " + r.AuthMechanism
	}
	if r.CSFLE != nil && r.CSFLE != false {
		return "needs CSFLE"
	}
	if len(r.ServerParameters) > 0 {
		return env.unmetParameters(ctx, r.ServerParameters)
	}
	return ""
}

func (env *Env) unmetParameters(ctx context.Context, want bson.D) string {
	cmd := bson.D{{Key: "getParameter", Value: 1}}
	for _, e := range want {
		cmd = append(cmd, bson.E{Key: e.Key, Value: 1})
	}
	var got bson.D
	if err := env.server.Database("admin").RunCommand(ctx, cmd).Decode(&got); err != nil {
		return "getParameter failed: " + err.Error()
	}
	var m matcher
	if err := m.match(want, got, true, "$"); err != nil {
		return "server parameters: " + err.Error()
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
