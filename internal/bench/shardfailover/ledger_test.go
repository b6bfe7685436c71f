package shardfailover

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestVerify(t *testing.T) {
	l := newLedger()
	l.insertAcked("k1")
	l.insertAcked("k2")
	l.updateAcked("k1", 3, 7)
	l.updateAcked("k1", 3, 9) // a worker's later write supersedes its earlier one
	l.updateAcked("k1", 4, 2)
	l.updateAcked("k2", 3, 5)
	tests := []struct {
		name              string
		docs              map[string]docFields
		wantLost, wantMis int
		wantExample       string
	}{
		{name: "everything there", docs: map[string]docFields{"k1": {3: 9, 4: 2}, "k2": {3: 5}}},
		{name: "an unacknowledged later write applied is not a loss",
			docs: map[string]docFields{"k1": {3: 10, 4: 2}, "k2": {3: 6}}},
		{name: "older value: lost", docs: map[string]docFields{"k1": {3: 7, 4: 2}, "k2": {3: 5}},
			wantLost: 1, wantExample: "k1.a3 = 7 (found true), acknowledged 9"},
		{name: "field missing: lost", docs: map[string]docFields{"k1": {3: 9}, "k2": {3: 5}},
			wantLost: 1, wantExample: "k1.a4 = 0 (found false), acknowledged 2"},
		{name: "document missing: the insert and its writes lost", docs: map[string]docFields{"k1": {3: 9, 4: 2}},
			wantLost: 1, wantMis: 1, wantExample: "inserted k2 missing"},
		{name: "nothing read", docs: nil, wantLost: 3, wantMis: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo := l.verify(tt.docs)
			if lo.LostWrites != tt.wantLost || lo.MissingDocs != tt.wantMis || lo.AckedWrites != 6 ||
				lo.Lost() != tt.wantLost+tt.wantMis {
				t.Errorf("got %+v, want %d lost writes, %d missing docs", lo, tt.wantLost, tt.wantMis)
			}
			if tt.wantExample != "" && !strings.Contains(strings.Join(lo.Examples, "\n"), tt.wantExample) {
				t.Errorf("examples %q lack %q", lo.Examples, tt.wantExample)
			}
		})
	}
}

func TestAckField(t *testing.T) {
	for _, tt := range []struct {
		name   string
		worker int
		ok     bool
	}{{"a0", 0, true}, {"a17", 17, true}, {"a", 0, false}, {"field0", 0, false}, {"a-1", 0, false}, {"ab", 0, false}, {"_id", 0, false}} {
		w, ok := ackField(tt.name)
		if w != tt.worker || ok != tt.ok {
			t.Errorf("ackField(%q) = %d, %v; want %d, %v", tt.name, w, ok, tt.worker, tt.ok)
		}
	}
}

func TestAckFields(t *testing.T) {
	raw, err := bson.Marshal(bson.D{{Key: "_id", Value: "user1"}, {Key: "field0", Value: "x"},
		{Key: "a2", Value: int64(5)}, {Key: "a3", Value: int32(4)}, {Key: "a4", Value: "not a number"}})
	if err != nil {
		t.Fatal(err)
	}
	id, f, err := ackFields(raw)
	if err != nil || id != "user1" || len(f) != 2 || f[2] != 5 || f[3] != 4 {
		t.Errorf("ackFields = %q, %v, %v", id, f, err)
	}
}
