package shardfailover

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// ackPrefix starts the per-worker field every update sets: "a<worker>".
const ackPrefix = "a"

// maxLossExamples bounds the examples a Loss keeps.
const maxLossExamples = 5

// ledger is every acknowledged write: the loaded keys and, per key and
// worker, the last acknowledged sequence number of that worker's field.
type ledger struct {
	mu       sync.Mutex
	inserted map[string]bool          // REQUIRES: mu
	acked    map[string]map[int]int64 // REQUIRES: mu; key -> worker -> seq
	writes   int64                    // REQUIRES: mu; acknowledged writes
}

func newLedger() *ledger {
	return &ledger{inserted: map[string]bool{}, acked: map[string]map[int]int64{}}
}

func (l *ledger) insertAcked(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inserted[key] = true
	l.writes++
}

// updateAcked notes worker's acknowledged write of seq to key's field; a
// worker's writes are sequential, so seq only grows.
func (l *ledger) updateAcked(key string, worker int, seq int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.acked[key]
	if m == nil {
		m = map[int]int64{}
		l.acked[key] = m
	}
	m[worker] = seq
	l.writes++
}

// Loss is the result of reading every acknowledged write back.
type Loss struct {
	AckedWrites int64    `json:"ackedWrites"`
	Documents   int      `json:"documentsRead"`
	LostWrites  int      `json:"lostWrites"`  // (key, worker) whose last acknowledged value is not there
	MissingDocs int      `json:"missingDocs"` // acknowledged inserts not found
	Examples    []string `json:"examples,omitempty"`
	Err         string   `json:"error,omitempty"` // the read-back failed
}

// docFields is what the read-back keeps of a document: its a<worker> fields.
type docFields map[int]int64

// verify compares the ledger with the documents read back (key -> fields;
// a key absent from docs was not found). Pure but for the ledger's lock.
func (l *ledger) verify(docs map[string]docFields) Loss {
	l.mu.Lock()
	defer l.mu.Unlock()
	lo := Loss{AckedWrites: l.writes, Documents: len(docs)}
	for _, key := range sortedKeys(l.inserted) {
		if _, ok := docs[key]; !ok {
			lo.MissingDocs++
			lo.example(fmt.Sprintf("inserted %s missing", key))
		}
	}
	for _, key := range sortedKeys(l.acked) {
		d, found := docs[key]
		for _, w := range sortedKeys(l.acked[key]) {
			want := l.acked[key][w]
			if got, ok := d[w]; !found || !ok || got < want {
				lo.LostWrites++
				lo.example(fmt.Sprintf("%s.%s%d = %d (found %v), acknowledged %d", key, ackPrefix, w, got, found && ok, want))
			}
		}
	}
	return lo
}

func (lo *Loss) example(s string) {
	if len(lo.Examples) < maxLossExamples {
		lo.Examples = append(lo.Examples, s)
	}
}

// Lost is every acknowledged write that was not read back.
func (lo Loss) Lost() int { return lo.LostWrites + lo.MissingDocs }

func sortedKeys[K string | int, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// ackField parses a field name "a<worker>"; ok is false for any other.
func ackField(name string) (worker int, ok bool) {
	rest, found := strings.CutPrefix(name, ackPrefix)
	if !found || rest == "" {
		return 0, false
	}
	w, err := strconv.Atoi(rest)
	if err != nil || w < 0 {
		return 0, false
	}
	return w, true
}
