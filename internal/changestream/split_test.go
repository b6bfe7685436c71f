package changestream

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

func bigEvent(t Token, sizesMB ...int) bson.D {
	d := bson.D{{Key: "_id", Value: t.Doc()}, {Key: "operationType", Value: "update"}}
	for i, mb := range sizesMB {
		d = append(d, bson.E{Key: string(rune('a' + i)), Value: strings.Repeat("x", mb<<20)})
	}
	return d
}

// TestSplitEvent: an event over 16 MB becomes fragments of whole
// top-level fields, in order, each under 16 MB with its own token and
// splitEvent; a field alone over 16 MB is BSONObjectTooLarge.
func TestSplitEvent(t *testing.T) {
	tok := Token{TS: bson.Timestamp{T: 9, I: 1}}
	tests := []struct {
		sizes []int
		want  int // fragments; 0: returned whole
		code  mongoerr.Code
	}{
		{[]int{1, 2}, 0, 0},
		{[]int{10, 10}, 2, 0},
		{[]int{6, 6, 6, 6}, 2, 0},
		{[]int{15, 15, 15}, 3, 0},
		{[]int{17}, 0, mongoerr.BSONObjectTooLarge},
	}
	for _, tt := range tests {
		frags, err := splitEvent(bigEvent(tok, tt.sizes...), tok)
		if codeOf(err) != tt.code || len(frags) != tt.want {
			t.Errorf("sizes %v: %d fragments, %v; want %d, code %d", tt.sizes, len(frags), err, tt.want, tt.code)
			continue
		}
		fields := 0
		for i, f := range frags {
			raw, _ := bson.Marshal(f.doc)
			if len(raw) > maxEventSize {
				t.Errorf("sizes %v: fragment %d is %d bytes", tt.sizes, i+1, len(raw))
			}
			if f.token.Fragment != uint32(i+1) || !sameToken(lookupField(f.doc, "_id"), f.token) {
				t.Errorf("sizes %v: fragment %d token %+v", tt.sizes, i+1, f.token)
			}
			se := lookupField(f.doc, "splitEvent").(bson.D)
			if lookupField(se, "fragment") != int32(i+1) || lookupField(se, "of") != int32(len(frags)) {
				t.Errorf("sizes %v: splitEvent %v", tt.sizes, se)
			}
			fields += len(f.doc) - 2
		}
		if tt.want > 0 && fields != len(tt.sizes)+1 {
			t.Errorf("sizes %v: %d fields in the fragments, want %d", tt.sizes, fields, len(tt.sizes)+1)
		}
	}
}

// TestSplitResume: a stream resumed from a fragment's token returns the
// event's next fragments, then the next event; fragment tokens sort
// between the event's token and the next event's.
func TestSplitResume(t *testing.T) {
	tok := Token{TS: bson.Timestamp{T: 9, I: 1}}
	next := Token{TS: bson.Timestamp{T: 9, I: 2}}
	small := bson.D{{Key: "_id", Value: next.Doc()}, {Key: "operationType", Value: "insert"}}
	frag2 := tok
	frag2.Fragment = 2
	if tok.Compare(frag2) >= 0 || frag2.Compare(next) >= 0 || tok.hex() >= frag2.hex() || frag2.hex() >= next.hex() {
		t.Fatalf("fragment token order: %s %s %s", tok.hex(), frag2.hex(), next.hex())
	}
	for _, tc := range []struct {
		skip *Token
		want []uint32 // fragment numbers then 0 for the small event
	}{
		{nil, []uint32{1, 2, 3, 0}},
		{&Token{TS: tok.TS, Fragment: 1}, []uint32{2, 3, 0}},
		{&Token{TS: tok.TS, Fragment: 3}, []uint32{0}},
		{&tok, []uint32{0}},
	} {
		s := &Stream{skip: tc.skip, src: Source{SplitLarge: true, Committed: func() bson.Timestamp { return bson.Timestamp{} }},
			buf: []Event{{Token: tok, Doc: bigEvent(tok, 15, 15, 15)}, {Token: next, Doc: small}}}
		var got []uint32
		for {
			doc, ok := s.Next()
			if !ok {
				break
			}
			tk, _ := ParseToken(lookupField(doc, "_id"))
			got = append(got, tk.Fragment)
			if s.ResumeToken() != tk {
				t.Errorf("resume token %+v after returning %+v", s.ResumeToken(), tk)
			}
		}
		if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("skip %+v: fragments %v, want %v", tc.skip, got, tc.want)
		}
	}
}

func TestSplitStage(t *testing.T) {
	split := bson.D{{Key: splitStage, Value: bson.D{}}}
	match := bson.D{{Key: "$match", Value: bson.D{}}}
	tests := []struct {
		rest  bson.A
		n     int
		split bool
		code  mongoerr.Code
	}{
		{bson.A{match}, 1, false, 0},
		{bson.A{match, split}, 1, true, 0},
		{bson.A{split, match}, 0, false, mongoerr.StageMustBeLast},
		{bson.A{bson.D{{Key: splitStage, Value: bson.D{{Key: "x", Value: 1}}}}}, 0, false, mongoerr.BadValue},
	}
	for _, tt := range tests {
		rest, split, err := SplitStage(tt.rest)
		if codeOf(err) != tt.code || (err == nil && (len(rest) != tt.n || split != tt.split)) {
			t.Errorf("SplitStage(%v) = %v, %v, %v", tt.rest, rest, split, err)
		}
	}
}
