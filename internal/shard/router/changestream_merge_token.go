package router

import (
	"encoding/hex"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/changestream"
	"github.com/relaydb/relaydb/internal/mongoerr"
)

// rtoken is a merged stream's position: a shard's token and the shard's
// id ("" for a high-water mark, or a token without one, which every
// shard shares). Its _data is the shard token's bytes, 0xFF and the id:
// a fragment number never opens with 0xFF, so the split is unambiguous.
type rtoken struct {
	tok   changestream.Token
	shard string
}

// compare orders positions: by token, then by shard id.
func (t rtoken) compare(u rtoken) int {
	if c := t.tok.Compare(u.tok); c != 0 {
		return c
	}
	return strings.Compare(t.shard, u.shard)
}

// doc is the token as drivers see it.
func (t rtoken) doc() bson.D {
	d := t.tok.Doc()
	if t.shard == "" {
		return d
	}
	s, _ := d[0].Value.(string)
	return bson.D{{Key: "_data", Value: s + "FF" + strings.ToUpper(hex.EncodeToString([]byte(t.shard)))}}
}

// parseRToken decodes a resume token the router or a shard made.
func parseRToken(v any) (rtoken, error) {
	d, _ := v.(bson.D)
	if len(d) == 1 && d[0].Key == "_data" {
		if s, ok := d[0].Value.(string); ok {
			for _, n := range []int{28, 36} { // a whole event's token, a fragment's
				if len(s) > n+2 && strings.EqualFold(s[n:n+2], "FF") {
					id, err := hex.DecodeString(s[n+2:])
					if err != nil {
						return rtoken{}, mongoerr.New(mongoerr.BadValue, "Bad resume token: the shard id is not hex")
					}
					t, err := changestream.ParseToken(bson.D{{Key: "_data", Value: s[:n]}})
					return rtoken{t, string(id)}, err
				}
			}
		}
	}
	t, err := changestream.ParseToken(v)
	return rtoken{tok: t}, err
}

// startFor is where shard id resumes a stream the client resumes at t:
// after t on the shards ordered at or before t's shard, just before t's
// event on the others (their events at t's token come after it).
func (t rtoken) startFor(id string) changestream.Token {
	if t.shard == "" || id <= t.shard || t.tok.Fragment > 0 || t.tok.Invalidate {
		return t.tok
	}
	if t.tok.Index > 0 {
		return changestream.Token{TS: t.tok.TS, Index: t.tok.Index - 1, Invalidate: true}
	}
	return changestream.HighWaterMark(prevTimestamp(t.tok.TS))
}

func prevTimestamp(ts bson.Timestamp) bson.Timestamp {
	switch {
	case ts.I > 0:
		return bson.Timestamp{T: ts.T, I: ts.I - 1}
	case ts.T > 0:
		return bson.Timestamp{T: ts.T - 1, I: ^uint32(0)}
	}
	return ts
}

func nextTimestamp(ts bson.Timestamp) bson.Timestamp {
	if ts.I == ^uint32(0) {
		return bson.Timestamp{T: ts.T + 1}
	}
	return bson.Timestamp{T: ts.T, I: ts.I + 1}
}
