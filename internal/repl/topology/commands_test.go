package topology

import (
	"fmt"
	"strings"
	"time"
)

// mutate handles the commands that change the simulated world.
func (e *env) mutate(a args) string {
	cl := e.cl
	switch a.verb {
	case "kill":
		for _, w := range a.words {
			cl.byID(atoi(e.t, w)).alive = false
		}
	case "restart":
		for _, w := range a.words {
			cl.start(cl.byID(atoi(e.t, w)))
		}
	case "partition": // partition 0,1/2,3,4
		e.partition(a.words[0])
	case "heal":
		cl.cut = map[[2]int]bool{}
	case "replicate":
		cl.replicate = a.has("on")
	case "write":
		n := 1
		if v := a.kv["n"]; v != "" {
			n = atoi(e.t, v)
		}
		for p := range n {
			_ = p
			for _, nd := range cl.nodes {
				cl.write(nd)
				if w := a.kv["w"]; w != "" && nd.alive && nd.c.Writable() { // a writer waits for w
					cl.apply(nd, nd.c.NoteWriteConcernWait(cl.now, writeConcernArg(e, w)))
				}
			}
			cl.step(10 * time.Millisecond)
		}
		if log := cl.takeLog(); !a.has("quiet") {
			return log
		}
		return "ok"

	case "applied": // applied 1=105:1@1 ... sets a member's oplog end
		for k, v := range a.kv {
			nd := cl.byID(atoi(e.t, k))
			op := parseOpTime(e.t, v)
			nd.oplog, nd.applied = append(nd.oplog, op), len(nd.oplog)+1
			cl.apply(nd, nd.c.LocalApplied(cl.now, op))
			cl.apply(nd, nd.c.LocalDurable(cl.now, op))
		}
	case "pos":
		e.setPos(a.words[0])
	}
	return ""
}

// writeConcernArg reads a script's w=: "majority" or a number.
func writeConcernArg(e *env, w string) any {
	if w == "majority" {
		return w
	}
	return atoi(e.t, w)
}

func (e *env) partition(spec string) {
	cl := e.cl
	group := map[int]int{}
	for g, ids := range strings.Split(spec, "/") {
		for _, id := range strings.Split(ids, ",") {
			group[cl.cfg.MemberIndex(atoi(e.t, id))] = g + 1
		}
	}
	for i := range cl.nodes {
		for j := range cl.nodes {
			if group[i] != group[j] {
				cl.cut[[2]int{i, j}] = true
			}
		}
	}
}

// command runs a client command or a raw protocol message on one node
// and prints its answer and actions.
func (e *env) command(a args) string {
	cl := e.cl
	nd := e.node(a.kv["node"])
	var acts []Action
	var err error
	var out string
	switch a.verb {
	case "vote":
		req := VoteRequest{
			Candidate: atoi(e.t, a.kv["candidate"]), Term: int64(atoi(e.t, a.kv["term"])),
			DryRun: a.has("dry"), ConfigVersion: cl.cfg.Version, LastApplied: parseOpTime(e.t, a.kv["applied"]),
		}
		var r VoteReply
		r, acts = nd.c.VoteRequest(cl.now, req)
		out = fmt.Sprintf("granted=%v term=%d %s", r.Granted, r.Term, r.Reason)
	case "stepdown":
		acts, err = nd.c.StepDownRequest(cl.now, a.has("force"), optDur(e, a, "period", 60*time.Second), optDur(e, a, "catchup", 10*time.Second))
	case "freeze":
		acts, err = nd.c.Freeze(cl.now, optDur(e, a, "d", 0))
	case "syncfrom":
		var prev int
		prev, acts, err = nd.c.SyncFromRequest(cl.now, a.kv["host"])
		out = "prev=" + idStr(prev)
	case "wc":
		op := parseOpTime(e.t, a.kv["op"])
		var w any = a.kv["w"]
		if n, convErr := fmt.Sscan(a.kv["w"], new(int)); convErr == nil && n == 1 {
			w = atoi(e.t, a.kv["w"])
		}
		out = fmt.Sprint(nd.c.WriteConcernSatisfied(w, a.has("j"), op))
	case "reconfig":
		cfg := buildConfig(e.t, a, nil)
		cfg.Version = cl.cfg.Version + 1
		if err = cfg.Validate(); err == nil {
			cl.cfg = cfg
			for _, n := range cl.nodes {
				if n.alive {
					cl.apply(n, n.c.ConfigChanged(cl.now, cfg))
				}
			}
		}
	}
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "error: %v\n", err)
	}
	if out != "" {
		fmt.Fprintln(&b, strings.TrimSpace(out))
	}
	for _, act := range acts {
		fmt.Fprintln(&b, act)
	}
	cl.apply(nd, acts)
	cl.log = nil
	return b.String()
}

func optDur(e *env, a args, key string, def time.Duration) time.Duration {
	if v := a.kv[key]; v != "" {
		return dur(e.t, v)
	}
	return def
}

// node finds a member by _id, or the live primary for "primary".
func (e *env) node(s string) *node {
	if s == "primary" {
		for _, n := range e.cl.nodes {
			if n.alive && n.c.State() == StatePrimary {
				return n
			}
		}
		e.t.Fatal("no primary")
	}
	return e.cl.byID(atoi(e.t, s))
}

// elect makes member id primary: the others are frozen until it wins.
func (e *env) elect(id int) string {
	cl := e.cl
	for _, n := range cl.nodes {
		if cl.id(n.idx) != id && n.c.State() != StatePrimary {
			_, _ = n.c.Freeze(cl.now, time.Minute)
		}
	}
	for range 1000 {
		if cl.byID(id).c.Writable() {
			break
		}
		cl.step(10 * time.Millisecond)
	}
	for _, n := range cl.nodes {
		_, _ = n.c.Freeze(cl.now, 0)
	}
	cl.run(600*time.Millisecond, 10*time.Millisecond)
	return cl.takeLog()
}
