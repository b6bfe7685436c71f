package changestream

import (
	"encoding/binary"
	"encoding/hex"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/mongoerr"
)

// tokenVersion opens every encoded token, as MongoDB's keystring-encoded
// tokens open with a type byte; it lets a later format be told apart.
const tokenVersion = 0x82

// hwmIndex is the operation index of a high-water-mark token: after every
// operation of its entry.
const hwmIndex = ^uint32(0)

// Token is a decoded resume token: a position in the stream.
type Token struct {
	TS bson.Timestamp
	// Index is the operation's index inside an applyOps entry (0 for any
	// other entry); hwmIndex for a high-water mark.
	Index uint32
	// Invalidate marks the invalidate event that follows the event at
	// (TS, Index).
	Invalidate bool
	// Fragment is the fragment's number (from 1) of an event split by
	// $changeStreamSplitLargeEvent; 0 for a whole event.
	Fragment uint32
}

// HighWaterMark is the token of a stream that has scanned the entry at ts.
func HighWaterMark(ts bson.Timestamp) Token { return Token{TS: ts, Index: hwmIndex} }

// IsHighWaterMark reports whether t is a high-water mark.
func (t Token) IsHighWaterMark() bool { return t.Index == hwmIndex }

// Compare orders tokens as their events: -1, 0 or 1. An event's
// fragments follow the event's own token, in order.
func (t Token) Compare(u Token) int {
	if c := t.TS.Compare(u.TS); c != 0 {
		return c
	}
	switch {
	case t.Index != u.Index:
		return cmpUint(t.Index, u.Index)
	case t.Invalidate != u.Invalidate:
		if u.Invalidate {
			return -1
		}
		return 1
	}
	return cmpUint(t.Fragment, u.Fragment)
}

func cmpUint(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SameEvent reports whether t and u name the same event (fragments
// aside).
func (t Token) SameEvent(u Token) bool {
	t.Fragment, u.Fragment = 0, 0
	return t == u
}

// hex is the token's _data: 1 version byte, ts (T, I), index, flags and,
// for a fragment, its number, all big-endian, so the string order is the
// token order (a whole event's token is a prefix of its fragments').
func (t Token) hex() string {
	b := make([]byte, 14, 18)
	b[0] = tokenVersion
	binary.BigEndian.PutUint32(b[1:], t.TS.T)
	binary.BigEndian.PutUint32(b[5:], t.TS.I)
	binary.BigEndian.PutUint32(b[9:], t.Index)
	if t.Invalidate {
		b[13] = 1
	}
	if t.Fragment > 0 {
		b = binary.BigEndian.AppendUint32(b, t.Fragment)
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

// Doc is the token as drivers see it: {_data: "<hex>"}.
func (t Token) Doc() bson.D { return bson.D{{Key: "_data", Value: t.hex()}} }

// ParseToken decodes a resume token document.
func ParseToken(v any) (Token, error) {
	d, ok := v.(bson.D)
	if !ok {
		return Token{}, badToken("the resume token must be an object")
	}
	var data any
	for _, e := range d {
		if e.Key != "_data" {
			return Token{}, badToken("unexpected field '" + e.Key + "' in the resume token")
		}
		data = e.Value
	}
	s, ok := data.(string)
	if !ok {
		return Token{}, badToken("the resume token's _data must be a string")
	}
	b, err := hex.DecodeString(s)
	if err != nil || (len(b) != 14 && len(b) != 18) || b[0] != tokenVersion || b[13] > 1 {
		return Token{}, badToken("the resume token was not made by relaydb")
	}
	t := Token{
		TS:         bson.Timestamp{T: binary.BigEndian.Uint32(b[1:]), I: binary.BigEndian.Uint32(b[5:])},
		Index:      binary.BigEndian.Uint32(b[9:]),
		Invalidate: b[13] == 1,
	}
	if len(b) == 18 {
		if t.Fragment = binary.BigEndian.Uint32(b[14:]); t.Fragment == 0 {
			return Token{}, badToken("fragment 0")
		}
	}
	return t, nil
}

func badToken(why string) error {
	return mongoerr.New(mongoerr.BadValue, "Bad resume token: %s", why)
}
