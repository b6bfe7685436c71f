package router

import (
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/relaydb/relaydb/internal/command"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/netclient"
)

// TestReadPrefParse: $readPreference is parsed and refused as mongos's
// ReadPreferenceSetting::fromInnerBSON does.
func TestReadPrefParse(t *testing.T) {
	rp := func(fields ...bson.E) bson.D {
		return bson.D{{Key: "find", Value: "c"}, {Key: "$readPreference", Value: bson.D(fields)}}
	}
	mode := func(m string) bson.E { return bson.E{Key: "mode", Value: m} }
	tags := func(sets ...any) bson.E { return bson.E{Key: "tags", Value: bson.A(sets)} }
	stale := func(v any) bson.E { return bson.E{Key: "maxStalenessSeconds", Value: v} }
	east := bson.D{{Key: "dc", Value: "east"}}
	tests := []struct {
		name string
		cmd  bson.D
		want netclient.ReadPref
		code mongoerr.Code
		msg  string
	}{
		{"absent", bson.D{{Key: "find", Value: "c"}}, netclient.ReadPref{Mode: "primary"}, 0, ""},
		{"mode only", rp(mode("secondary")), netclient.ReadPref{Mode: "secondary"}, 0, ""},
		{"tags and staleness", rp(mode("nearest"), tags(east, bson.D{}), stale(int32(120))),
			netclient.ReadPref{Mode: "nearest", TagSets: []bson.D{east, {}}, MaxStaleness: 120 * time.Second}, 0, ""},
		{"staleness as a whole double", rp(mode("secondary"), stale(90.0)), netclient.ReadPref{Mode: "secondary", MaxStaleness: 90 * time.Second}, 0, ""},
		{"default tags [{}]", rp(mode("secondary"), tags(bson.D{})), netclient.ReadPref{Mode: "secondary"}, 0, ""},
		{"empty tags with primary", rp(mode("primary"), tags()), netclient.ReadPref{Mode: "primary"}, 0, ""},
		{"hedge is ignored", rp(mode("nearest"), bson.E{Key: "hedge", Value: bson.D{{Key: "enabled", Value: true}}}), netclient.ReadPref{Mode: "nearest"}, 0, ""},
		{"not a document", bson.D{{Key: "find", Value: "c"}, {Key: "$readPreference", Value: "secondary"}}, netclient.ReadPref{}, mongoerr.TypeMismatch, "$readPreference has incorrect type: expected object but got string"},
		{"no mode", rp(tags(east)), netclient.ReadPref{}, mongoerr.NoSuchKey, `Missing expected field "mode"`},
		{"mode not a string", rp(bson.E{Key: "mode", Value: int32(1)}), netclient.ReadPref{}, mongoerr.TypeMismatch, `"mode" had the wrong type`},
		{"unknown mode", rp(mode("fastest")), netclient.ReadPref{}, mongoerr.BadValue, "Could not parse $readPreference mode 'fastest'"},
		{"tags not an array", rp(mode("secondary"), bson.E{Key: "tags", Value: east}), netclient.ReadPref{}, mongoerr.TypeMismatch, `"tags" had the wrong type`},
		{"tags with primary", rp(mode("primary"), tags(east)), netclient.ReadPref{}, mongoerr.BadValue, "Only empty tags are allowed with primary read preference"},
		{"staleness under 90", rp(mode("secondary"), stale(int64(89))), netclient.ReadPref{}, mongoerr.MaxStalenessOutOfRange, "maxStalenessSeconds value can not be less than 90"},
		{"staleness negative", rp(mode("secondary"), stale(int32(-1))), netclient.ReadPref{}, mongoerr.BadValue, "maxStalenessSeconds must be a non-negative integer"},
		{"staleness fractional", rp(mode("secondary"), stale(95.5)), netclient.ReadPref{}, mongoerr.BadValue, "exactly representable"},
		{"staleness a string", rp(mode("secondary"), stale("95")), netclient.ReadPref{}, mongoerr.TypeMismatch, `"maxStalenessSeconds" had the wrong type`},
		{"staleness with primary", rp(mode("primary"), stale(int32(120))), netclient.ReadPref{}, mongoerr.BadValue, "maxStalenessSeconds can not be set for the primary mode"},
		{"staleness 0 is none", rp(mode("primary"), stale(int32(0))), netclient.ReadPref{Mode: "primary"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readPref(tt.cmd)
			if tt.code != 0 {
				if !mongoerr.Is(err, tt.code) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("err = %v, want %s %q", err, tt.code.Name(), tt.msg)
				}
				return
			}
			if err != nil || got.String() != tt.want.String() || got.Mode != tt.want.Mode {
				t.Fatalf("readPref = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// TestRawReadPref: the fast path reads the same read preference from the
// raw request, sends only reads by it, and leaves an invalid one to the
// decoded path (which answers the error).
func TestRawReadPref(t *testing.T) {
	scan := func(name string, rp bson.D) (rawReq, bool) {
		body := bson.D{{Key: name, Value: "c"}, {Key: "$readPreference", Value: rp}, {Key: "$db", Value: "db"}}
		raw, err := bson.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		return scanRequest(&command.Request{Body: bsoncore.Document(raw)})
	}
	q, ok := scan("find", bson.D{{Key: "mode", Value: "secondary"}, {Key: "tags", Value: bson.A{bson.D{{Key: "dc", Value: "east"}}}}})
	if !ok || !q.selects() || q.readPref().String() != `{ mode: "secondary", tags: [ { dc: "east" } ] }` {
		t.Fatalf("find: ok %v, selects %v, pref %s", ok, q.selects(), q.readPref())
	}
	if q, ok := scan("count", bson.D{{Key: "mode", Value: "primary"}}); !ok || q.selects() {
		t.Fatalf("count with mode primary: ok %v, selects %v", ok, q.selects())
	}
	if q, ok := scan("insert", bson.D{{Key: "mode", Value: "nearest"}}); !ok || q.selects() {
		t.Fatalf("insert with mode nearest: ok %v, selects %v (writes go to the primary)", ok, q.selects())
	}
	if _, ok := scan("find", bson.D{{Key: "mode", Value: "secondary"}, {Key: "maxStalenessSeconds", Value: int32(10)}}); ok {
		t.Fatal("an invalid $readPreference stayed on the fast path")
	}
}
