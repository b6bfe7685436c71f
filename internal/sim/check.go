package sim

import (
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// checkEvery is how often (simulated) the oplog invariants run during a
// schedule; they also run on demand (CheckLogs) and at the end.
const checkEvery = 200 // steps

// checker holds what the invariants need across steps.
type checker struct {
	leaders   map[int64]int // term -> _id of the member that won it
	committed []write       // majority-committed writes, in commit order
	steps     int
	err       error // first violation
}

func newChecker() *checker { return &checker{leaders: map[int64]int{}} }

func (k *checker) violate(cl *Cluster, format string, args ...any) {
	if k.err == nil {
		k.err = fmt.Errorf("invariant violated at %v: %s", cl.Now(), fmt.Sprintf(format, args...))
	}
}

// elected checks election safety: one winner per term.
func (k *checker) elected(cl *Cluster, m *Member, term int64) {
	if prev, ok := k.leaders[term]; ok && prev != m.id {
		k.violate(cl, "two primaries in term %d: n%d and n%d", term, prev, m.id)
	}
	k.leaders[term] = m.id
}

// newPrimary checks that a new primary holds every committed write.
func (k *checker) newPrimary(cl *Cluster, m *Member, term int64) {
	first := m.cat.Oplog().First()
	for _, w := range k.committed {
		has, err := hasEntry(m, w.op)
		if err != nil {
			cl.fail(err)
			return
		}
		if w.op.TS.Before(first) { // before its oplog (initial sync): the document must be there
			has = cl.hasDoc(m, w.id)
		}
		if !has {
			k.violate(cl, "n%d became primary of term %d without committed write _id %d at %s", m.id, term, w.id, w.op)
			return
		}
	}
}

func (k *checker) commit(w write) { k.committed = append(k.committed, w) }

func (k *checker) afterStep(cl *Cluster) {
	if k.steps++; k.steps%checkEvery == 0 {
		cl.CheckLogs(false)
	}
}

// Committed returns how many writes were majority-committed so far.
func (cl *Cluster) Committed() int { return len(cl.chk.committed) }

// Elections returns how many terms had a winner.
func (cl *Cluster) Elections() int { return len(cl.chk.leaders) }

// opLog is one member's oplog as OpTimes, with an index by OpTime.
type opLog struct {
	ops []topology.OpTime
	at  map[topology.OpTime]int
}

func readLog(m *Member) (opLog, error) {
	raws, err := m.cat.Oplog().ReadRaw(bson.Timestamp{}, true, 0)
	if err != nil {
		return opLog{}, fmt.Errorf("n%d: read oplog: %w", m.id, err)
	}
	l := opLog{at: make(map[topology.OpTime]int, len(raws))}
	for _, raw := range raws {
		ts, _, err1 := bsonx.Lookup(raw, "ts")
		t, _, err2 := bsonx.Lookup(raw, "t")
		if err1 != nil || err2 != nil {
			return opLog{}, fmt.Errorf("n%d: bad oplog entry", m.id)
		}
		term, _ := bsonx.AsInt64(t)
		op := topology.OpTime{TS: ts.(bson.Timestamp), Term: term}
		l.at[op] = len(l.ops)
		l.ops = append(l.ops, op)
	}
	return l, nil
}

// CheckLogs runs the oplog invariants over every live member: order, log
// matching and durability of committed writes (with docs, also that each
// committed document is present). Violations are recorded (see Err).
func (cl *Cluster) CheckLogs(docs bool) {
	logs := map[int]opLog{}
	for _, m := range cl.members {
		if !m.alive {
			continue
		}
		l, err := readLog(m)
		if err != nil {
			cl.fail(err)
			return
		}
		logs[m.idx] = l
		cl.checkOrder(m, l)
		cl.checkDurable(m, l, docs)
	}
	for i := range cl.members {
		for j := i + 1; j < len(cl.members); j++ {
			a, okA := logs[i]
			b, okB := logs[j]
			if okA && okB {
				cl.checkMatching(cl.members[i], cl.members[j], a, b)
			}
		}
	}
}

func (cl *Cluster) checkOrder(m *Member, l opLog) {
	for i := 1; i < len(l.ops); i++ {
		p, q := l.ops[i-1], l.ops[i]
		if !q.TS.After(p.TS) || q.Term < p.Term {
			cl.chk.violate(cl, "n%d oplog out of order at %d: %s then %s", m.id, i, p, q)
			return
		}
	}
}

// aligned returns a and b from the first entry both hold at their start:
// a member that initial-synced holds only the source's oplog from the
// sync's begin point on. ok is false when neither starts inside the other.
func aligned(a, b opLog) (ra, rb []topology.OpTime, ok bool) {
	if len(a.ops) == 0 || len(b.ops) == 0 {
		return a.ops, b.ops, true
	}
	if i, found := a.at[b.ops[0]]; found {
		return a.ops[i:], b.ops, true
	}
	if j, found := b.at[a.ops[0]]; found {
		return a.ops, b.ops[j:], true
	}
	return nil, nil, false
}

// checkMatching: past the common prefix of a and b (from where both
// start), no entry of b may appear in a (it would have a different prefix
// there).
func (cl *Cluster) checkMatching(ma, mb *Member, a, b opLog) {
	ra, rb, ok := aligned(a, b)
	if !ok {
		return
	}
	p := 0
	for p < len(ra) && p < len(rb) && ra[p] == rb[p] {
		p++
	}
	for j := p; j < len(rb); j++ {
		if _, found := a.at[rb[j]]; found {
			cl.chk.violate(cl, "log matching: n%d and n%d both hold %s but their oplogs differ before it (at %s / %s)",
				ma.id, mb.id, rb[j], at(ra, p), at(rb, p))
			return
		}
	}
}

func at(ops []topology.OpTime, i int) string {
	if i < len(ops) {
		return ops[i].String()
	}
	return "end"
}

// checkDurable: a member at or past a committed write holds it.
func (cl *Cluster) checkDurable(m *Member, l opLog, docs bool) {
	if len(l.ops) == 0 {
		return
	}
	last := l.ops[len(l.ops)-1]
	for _, w := range cl.chk.committed {
		// Only a member at or past the commit point that covered w must
		// hold it: any entry from there on descends from it (a later
		// primary holds every committed entry). A member on a branch of
		// an older term that was never committed may be "newer" than w
		// by OpTime and lack it until it rolls back.
		if last.Less(w.cp) {
			continue
		}
		if _, ok := l.at[w.op]; !ok && !w.op.TS.Before(l.ops[0].TS) {
			cl.chk.violate(cl, "n%d (at %s) lost committed write _id %d at %s", m.id, last, w.id, w.op)
			return
		}
		if docs && !cl.hasDoc(m, w.id) {
			cl.chk.violate(cl, "n%d (at %s) lost committed document _id %d", m.id, last, w.id)
			return
		}
	}
}

func (cl *Cluster) hasDoc(m *Member, id int64) bool {
	coll := m.cat.Collection(DB, Coll)
	if coll == nil {
		return false
	}
	_, found, err := coll.FindByID(id)
	if err != nil {
		cl.fail(err)
	}
	return found
}
