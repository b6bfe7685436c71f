package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Script runs scenario commands against a Cluster it creates with init.
// Each command returns its output: the events it caused, or a report.
//
//	init n=3 [seed=1] [delay=2ms] [drop=0] [clone=N]
//	run 2s                  advance the clock, print events
//	write 5 [on=n0]         insert on the primary (or on member n0)
//	partition n0/n1,n2      cut links between the groups
//	heal | kill n1 | restart n1
//	killsource n2           kill n2's sync source, wherever its fetch is
//	powerfail n1            stop n1, keeping only what its disk synced
//	diskfault n1            n1's next WAL write or sync fails (it stops)
//	stepdown n0 [force]     replSetStepDown (catch-up 2s, period 5s)
//	reconfig add            add a member (it replicates from scratch)
//	reconfig priority=n2:3  set member n2's priority to 3
//
// A member is named n<id>, or "primary" for the current primary.
//
//	status                  per member: state, term, last, commit, source, oplog, docs
//	check                   oplog and durability invariants
//	converged               CheckConverged
type Script struct {
	Dir string // rollback files
	cl  *Cluster
}

// Close releases the cluster.
func (s *Script) Close() {
	if s.cl != nil {
		s.cl.Close()
	}
}

// Exec runs one command line.
func (s *Script) Exec(line string) (string, error) {
	verb, words, kv := parseLine(line)
	if verb != "init" && s.cl == nil {
		return "", fmt.Errorf("%s before init", verb)
	}
	out, err := s.exec(verb, words, kv)
	if err != nil {
		return "", err
	}
	if s.cl != nil {
		if ev := s.cl.TakeEvents(); ev != "" {
			out = strings.TrimSpace(ev + "\n" + out)
		}
		if err := s.cl.Err(); err != nil {
			out += "\nERROR: " + err.Error()
		}
	}
	return out, nil
}

func parseLine(line string) (verb string, words []string, kv map[string]string) {
	kv = map[string]string{}
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", nil, kv
	}
	for _, w := range f[1:] {
		if k, v, ok := strings.Cut(w, "="); ok {
			kv[k] = v
		} else {
			words = append(words, w)
		}
	}
	return f[0], words, kv
}

func (s *Script) exec(verb string, words []string, kv map[string]string) (string, error) {
	switch verb {
	case "init":
		return "", s.init(kv)
	case "run":
		d, err := time.ParseDuration(word(words, 0))
		if err != nil {
			return "", err
		}
		s.cl.Run(d)
		return "", nil
	case "write":
		return s.write(words, kv)
	case "partition":
		return "", s.partition(words)
	case "heal":
		s.cl.heal()
		return "", nil
	case "kill", "restart", "stepdown":
		return s.member(verb, words)
	case "killsource":
		return s.killSource(words)
	case "powerfail", "diskfault":
		i, err := s.cl.memberIndex(word(words, 0))
		if err != nil {
			return "", err
		}
		if verb == "diskfault" {
			s.cl.ArmDiskFault(i)
			return "", nil
		}
		return "", s.cl.powerFail(s.cl.members[i])
	case "reconfig":
		return s.reconfig(words, kv)
	case "status":
		return s.cl.Status(), nil
	case "check":
		s.cl.CheckLogs(true)
		return "", nil
	case "converged":
		if err := s.cl.CheckConverged(); err != nil {
			return "NOT CONVERGED: " + err.Error(), nil
		}
		return "converged", nil
	}
	return "", fmt.Errorf("unknown command %q", verb)
}

func word(words []string, i int) string {
	if i < len(words) {
		return words[i]
	}
	return ""
}

func (s *Script) init(kv map[string]string) error {
	n, _ := strconv.Atoi(kv["n"])
	seed, _ := strconv.ParseUint(orStr(kv["seed"], "1"), 10, 64)
	delay, err := time.ParseDuration(orStr(kv["delay"], "2ms"))
	if err != nil {
		return err
	}
	drop, _ := strconv.Atoi(kv["drop"])
	clone, _ := strconv.Atoi(kv["clone"])
	s.Close()
	s.cl, err = New(Options{N: n, Seed: seed, Dir: s.Dir, Network: NetOptions{MaxDelay: delay, DropPct: drop},
		CloneBatch: clone})
	return err
}

func orStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (s *Script) write(words []string, kv map[string]string) (string, error) {
	n, err := strconv.Atoi(word(words, 0))
	if err != nil {
		return "", fmt.Errorf("write N: %w", err)
	}
	idx := s.cl.Primary()
	if on, ok := kv["on"]; ok {
		if idx, err = s.cl.memberIndex(on); err != nil {
			return "", err
		}
	}
	if idx < 0 {
		return "no primary: wrote 0", nil
	}
	done, err := s.cl.Write(idx, n)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("n%d wrote %d of %d", s.cl.members[idx].id, done, n), nil
}

func (cl *Cluster) memberIndex(s string) (int, error) {
	if s == "primary" {
		if p := cl.Primary(); p >= 0 {
			return p, nil
		}
		return -1, fmt.Errorf("no primary")
	}
	id, err := strconv.Atoi(strings.TrimPrefix(s, "n"))
	if err != nil || cl.byID(id) == nil {
		return -1, fmt.Errorf("no member %q", s)
	}
	return cl.byID(id).idx, nil
}

func (s *Script) partition(words []string) error {
	var groups [][]*Member
	for _, g := range strings.Split(word(words, 0), "/") {
		var ms []*Member
		for _, w := range strings.Split(g, ",") {
			i, err := s.cl.memberIndex(w)
			if err != nil {
				return err
			}
			ms = append(ms, s.cl.members[i])
		}
		groups = append(groups, ms)
	}
	s.cl.partition(groups)
	return nil
}

func (s *Script) member(verb string, words []string) (string, error) {
	i, err := s.cl.memberIndex(word(words, 0))
	if err != nil {
		return "", err
	}
	m := s.cl.members[i]
	switch verb {
	case "kill":
		return "", s.cl.kill(m)
	case "restart":
		if m.alive {
			return "already running", nil
		}
		return "", s.cl.start(m)
	}
	return s.cl.StepDown(m, word(words, 1) == "force"), nil
}

func (s *Script) killSource(words []string) (string, error) {
	i, err := s.cl.memberIndex(word(words, 0))
	if err != nil {
		return "", err
	}
	m := s.cl.members[i]
	src := s.cl.byHost(m.coord.View().SyncSource)
	if src == nil {
		return fmt.Sprintf("n%d has no sync source", m.id), nil
	}
	s.cl.eventf("kill n%d (sync source of n%d at %s)", src.id, m.id, s.cl.fmtOp(m.last()))
	return "", s.cl.kill(src)
}

func (s *Script) reconfig(words []string, kv map[string]string) (string, error) {
	if word(words, 0) == "add" {
		return "", s.cl.AddMember()
	}
	if p, ok := kv["priority"]; ok {
		id, val, _ := strings.Cut(p, ":")
		i, err := s.cl.memberIndex(id)
		if err != nil {
			return "", err
		}
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return "", err
		}
		return "", s.cl.SetPriority(s.cl.members[i].id, f)
	}
	return "", fmt.Errorf("reconfig: add or priority=ID:P")
}
