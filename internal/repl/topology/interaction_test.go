package topology

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestScripts runs the datadriven golden scripts under testdata, each file
// on a fresh env (go test -rewrite to regenerate their expected output).
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		e := &env{t: t}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return scriptOutput(e.do(d))
		})
	})
}

type env struct {
	t  *testing.T
	cl *cluster
}

func (e *env) do(d *datadriven.TestData) string {
	a := argsOf(d.Cmd, d.CmdArgs)
	if e.cl == nil && a.verb != "init" && a.verb != "validate" {
		e.t.Fatalf("%s: %s before init", d.Pos, a.verb)
	}
	switch a.verb {
	case "init":
		return e.init(a, inputLines(d))
	case "validate":
		return e.validate(a, inputLines(d))
	case "run":
		e.cl.run(dur(e.t, a.words[0]), 10*time.Millisecond)
		return e.cl.takeLog()
	case "elect":
		return e.elect(atoi(e.t, a.words[0]))
	case "status":
		return e.status()
	case "tree":
		return e.tree()
	case "kill", "restart", "partition", "heal", "replicate", "write", "applied", "pos":
		return e.mutate(a)
	case "vote", "stepdown", "freeze", "syncfrom", "wc", "reconfig":
		return e.command(a)
	}
	e.t.Fatalf("%s: unknown command %q", d.Pos, a.verb)
	return ""
}

// buildConfig makes an n-member config named rs0 (hosts n0..) from args.
func buildConfig(t *testing.T, a args, input []string) Config {
	var members []MemberConfig
	if n := a.kv["n"]; n != "" {
		cnt := atoi(t, n)
		voters := cnt
		if v := a.kv["voters"]; v != "" {
			voters = atoi(t, v)
		}
		for i := range cnt {
			m := NewMember(i, fmt.Sprintf("n%d", i))
			if i >= voters {
				m.Votes, m.Priority = 0, 0
			}
			members = append(members, m)
		}
	}
	for _, l := range input {
		members = append(members, parseMember(t, parseArgs(t, "member "+l)))
	}
	cfg := NewConfig("rs0", members...)
	applyMemberFlags(t, &cfg, a)
	applySettings(t, &cfg.Settings, a)
	return cfg
}

func applyMemberFlags(t *testing.T, cfg *Config, a args) {
	set := func(key string, f func(m *MemberConfig, v string)) {
		if a.kv[key] == "" {
			return
		}
		for _, item := range strings.Split(a.kv[key], ",") {
			id, v, _ := strings.Cut(item, ":")
			f(&cfg.Members[cfg.MemberIndex(atoi(t, id))], v)
		}
	}
	set("arbiters", func(m *MemberConfig, _ string) { m.ArbiterOnly, m.Priority = true, 0 })
	set("hidden", func(m *MemberConfig, _ string) { m.Hidden, m.Priority = true, 0 })
	set("nonvoting", func(m *MemberConfig, _ string) { m.Votes, m.Priority = 0, 0 })
	set("delayed", func(m *MemberConfig, v string) { m.SecondaryDelaySecs, m.Priority, m.Hidden = atoi(t, v), 0, true })
	set("priority", func(m *MemberConfig, v string) { m.Priority, _ = strconv.ParseFloat(v, 64) })
	set("tags", func(m *MemberConfig, v string) {
		k, val, _ := strings.Cut(v, "/")
		m.Tags = map[string]string{k: val}
	})
}

func applySettings(t *testing.T, s *Settings, a args) {
	switch a.kv["chaining"] {
	case "false":
		s.ChainingAllowed = false
	case "auto":
		s.ChainingMode = "auto"
	case "true", "":
	default:
		s.ChainingMode = a.kv["chaining"]
	}
	if v := a.kv["fanout"]; v != "" {
		s.ChainFanout = atoi(t, v)
	}
	if v := a.kv["heartbeat"]; v != "" {
		s.HeartbeatInterval = dur(t, v)
	}
	if v := a.kv["election"]; v != "" {
		s.ElectionTimeout = dur(t, v)
	}
	if v := a.kv["catchup"]; v != "" {
		s.CatchUpTimeout = dur(t, v)
	}
	if v := a.kv["mode"]; v != "" { // name:tag/count
		name, rest, _ := strings.Cut(v, ":")
		tag, cnt, _ := strings.Cut(rest, "/")
		s.GetLastErrorModes = map[string]map[string]int{name: {tag: atoi(t, cnt)}}
	}
}

// parseMember reads "id=0 host=a priority=1 votes=1 hidden arbiter
// delay=10 noindexes tags=dc/east".
func parseMember(t *testing.T, a args) MemberConfig {
	m := NewMember(atoi(t, a.kv["id"]), a.kv["host"])
	if m.Host == "" && !a.has("nohost") {
		m.Host = fmt.Sprintf("n%d", m.ID)
	}
	if v, ok := a.kv["priority"]; ok {
		m.Priority, _ = strconv.ParseFloat(v, 64)
	}
	if v, ok := a.kv["votes"]; ok {
		m.Votes = atoi(t, v)
	}
	if v, ok := a.kv["delay"]; ok {
		m.SecondaryDelaySecs = atoi(t, v)
	}
	if v, ok := a.kv["tags"]; ok {
		k, val, _ := strings.Cut(v, "/")
		m.Tags = map[string]string{k: val}
	}
	m.Hidden, m.ArbiterOnly = a.has("hidden"), a.has("arbiter")
	m.BuildIndexes = !a.has("noindexes")
	return m
}

func (e *env) init(a args, input []string) string {
	cfg := buildConfig(e.t, a, input)
	if err := cfg.Validate(); err != nil {
		return err.Error()
	}
	seed := uint64(1)
	if v := a.kv["seed"]; v != "" {
		seed = uint64(atoi(e.t, v))
	}
	e.cl = newCluster(cfg, seed)
	if v := a.kv["pos"]; v != "" {
		e.setPos(v)
	}
	return ""
}

func (e *env) validate(a args, input []string) string {
	cfg := buildConfig(e.t, a, input)
	if v := a.kv["version"]; v != "" {
		cfg.Version = int64(atoi(e.t, v))
	}
	if err := cfg.Validate(); err != nil {
		return err.Error()
	}
	return fmt.Sprintf("valid: voters=%d majority=%d writeMajority=%d", cfg.Voters(), cfg.MajorityVoteCount(), cfg.WriteMajority())
}

func (e *env) setPos(v string) {
	for _, item := range strings.Split(v, ",") {
		id, p, _ := strings.Cut(item, ":")
		f, _ := strconv.ParseFloat(p, 64)
		e.cl.pos[e.cl.cfg.MemberIndex(atoi(e.t, id))] = f
	}
}

func (e *env) status() string {
	var b strings.Builder
	for _, n := range e.cl.nodes {
		c := n.c
		if !n.alive {
			fmt.Fprintf(&b, "n%d dead\n", e.cl.id(n.idx))
			continue
		}
		fmt.Fprintf(&b, "n%d %s term=%d primary=%s source=%s applied=%s commit=%s\n",
			e.cl.id(n.idx), c.State(), c.Term(), idStr(c.PrimaryID()), idStr(c.SyncSourceID()),
			c.Applied(), c.CommitPoint())
	}
	return b.String()
}

func idStr(id int) string {
	if id < 0 {
		return "-"
	}
	return "n" + strconv.Itoa(id)
}

// tree prints the sync-source tree: roots are members without a source.
func (e *env) tree() string {
	kids := map[int][]int{}
	var roots []int
	for _, n := range e.cl.nodes {
		id := e.cl.id(n.idx)
		if src := n.c.SyncSourceID(); n.alive && src >= 0 {
			kids[src] = append(kids[src], id)
		} else {
			roots = append(roots, id)
		}
	}
	var b strings.Builder
	var walk func(id, depth int)
	walk = func(id, depth int) {
		n := e.cl.byID(id)
		line := fmt.Sprintf("%sn%d %s", strings.Repeat("  ", depth), id, n.c.State())
		if !n.alive {
			line = fmt.Sprintf("%sn%d dead", strings.Repeat("  ", depth), id)
		}
		if src := n.c.SyncSourceID(); depth > 0 && src >= 0 {
			line += fmt.Sprintf(" rtt=%v", e.cl.rtt(n.idx, e.cl.cfg.MemberIndex(src)))
		}
		fmt.Fprintln(&b, line)
		sort.Ints(kids[id])
		for _, k := range kids[id] {
			walk(k, depth+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "n"))
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return n
}

func dur(t *testing.T, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("bad duration %q", s)
	}
	return d
}

// parseOpTime reads "secs:inc@term" or "secs@term".
func parseOpTime(t *testing.T, s string) OpTime {
	ts, term, ok := strings.Cut(s, "@")
	if !ok {
		t.Fatalf("bad OpTime %q", s)
	}
	secs, inc, ok := strings.Cut(ts, ":")
	if !ok {
		inc = "1"
	}
	return OpTime{TS: bson.Timestamp{T: uint32(atoi(t, secs)), I: uint32(atoi(t, inc))}, Term: int64(atoi(t, term))}
}
