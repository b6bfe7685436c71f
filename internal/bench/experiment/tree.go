package experiment

import (
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// MemberState is one member as the primary's replSetGetStatus shows it,
// named as the cluster names it (m0, m1, ...).
type MemberState struct {
	Name       string         `json:"name"`
	Host       string         `json:"host"`
	State      string         `json:"state"`      // stateStr
	SyncSource string         `json:"syncSource"` // syncSourceHost, "" for none
	Optime     bson.Timestamp `json:"optime"`
}

// ReplStatus is one poll of replSetGetStatus, members in config order.
type ReplStatus struct {
	Members []MemberState `json:"members"`
}

// Tree renders who pulls from whom as chains from the primary: "m0 <- m1
// <- m3; m0 <- m2" means m1 and m2 pull from m0 and m3 from m1. The first
// child of a member continues its chain, later children start a new chain
// at it. Members reached from no primary follow: "m4 <- m5" when m4 is not
// rooted, "m6: no sync source" for a secondary that pulls from nobody.
func Tree(st ReplStatus) string {
	name := map[string]string{} // host -> member name
	for _, m := range st.Members {
		name[m.Host] = m.Name
	}
	children := map[string][]string{}
	var roots []string
	for _, m := range st.Members {
		switch {
		case m.State == "PRIMARY":
			roots = append(roots, m.Name)
		case m.SyncSource != "":
			src := m.SyncSource
			if n, ok := name[src]; ok {
				src = n
			}
			children[src] = append(children[src], m.Name)
		}
	}
	r := treeRenderer{children: children, seen: map[string]bool{}}
	for _, root := range roots {
		r.walk("", root)
	}
	r.unrooted(st.Members)
	return strings.Join(r.chains, "; ")
}

type treeRenderer struct {
	children map[string][]string
	seen     map[string]bool
	chains   []string
}

// walk extends the chain prefix with n and its descendants.
func (r *treeRenderer) walk(prefix, n string) {
	if r.seen[n] {
		r.chains = append(r.chains, prefix+" (cycle)") // prefix ends at the member pulling from n
		return
	}
	r.seen[n] = true
	cur := n
	if prefix != "" {
		cur = prefix + " <- " + n
	}
	kids := r.children[n]
	if len(kids) == 0 {
		r.chains = append(r.chains, cur)
		return
	}
	r.walk(cur, kids[0])
	for _, k := range kids[1:] {
		r.walk(n, k)
	}
}

// unrooted renders the members no primary reaches, in config order.
func (r *treeRenderer) unrooted(members []MemberState) {
	for _, m := range members {
		if r.seen[m.Name] || m.State == "ARBITER" {
			continue
		}
		if m.SyncSource == "" {
			r.seen[m.Name] = true
			r.chains = append(r.chains, fmt.Sprintf("%s: no sync source", m.Name))
			continue
		}
		src := m.SyncSource
		for _, o := range members {
			if o.Host == src {
				src = o.Name
			}
		}
		r.walk(src, m.Name)
	}
}

// Lag is the primary's optime minus the slowest data member's, in
// seconds (MongoDB's replication lag, at the oplog's one-second
// resolution), and whether any member is behind at all. ok is false when
// no member reports PRIMARY.
func Lag(st ReplStatus) (secs float64, behind, ok bool) {
	primary, ok := primaryOf(st)
	if !ok {
		return 0, false, false
	}
	for _, m := range st.Members {
		if m.State == "PRIMARY" || m.State == "ARBITER" {
			continue
		}
		if m.Optime.Compare(primary) < 0 {
			behind = true
			secs = max(secs, float64(int64(primary.T)-int64(m.Optime.T)))
		}
	}
	return secs, behind, true
}
