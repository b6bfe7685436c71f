package netclient

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestEligible: mode, tag sets, maxStalenessSeconds and the latency
// window decide the members a read may go to (Server Selection and Max
// Staleness specifications, replica-set rules).
func TestEligible(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	hb := 10 * time.Second
	p := Candidate{Host: "P", Primary: true, Tags: map[string]string{"dc": "east"}, LastWrite: now, LastUpdate: now, RTT: 5 * time.Millisecond}
	s1 := Candidate{Host: "S1", Tags: map[string]string{"dc": "east", "rack": "1"}, LastWrite: now.Add(-time.Second), LastUpdate: now, RTT: 2 * time.Millisecond}
	s2 := Candidate{Host: "S2", Tags: map[string]string{"dc": "west"}, LastWrite: now, LastUpdate: now, RTT: 50 * time.Millisecond}
	s3 := Candidate{Host: "S3", Tags: map[string]string{"dc": "west"}, LastWrite: now.Add(-200 * time.Second), LastUpdate: now, RTT: 8 * time.Millisecond}
	// S4's hello was read 100 s ago, when it was current: not stale.
	s4 := Candidate{Host: "S4", Tags: map[string]string{"dc": "south"}, LastWrite: now.Add(-100 * time.Second), LastUpdate: now.Add(-100 * time.Second), RTT: 3 * time.Millisecond}
	all := []Candidate{p, s1, s2, s3}
	noPrimary := []Candidate{s1, s2, s3}
	tags := func(sets ...bson.D) []bson.D { return sets }
	dc := func(v string) bson.D { return bson.D{{Key: "dc", Value: v}} }
	stale := 90 * time.Second

	tests := []struct {
		name    string
		members []Candidate
		pref    ReadPref
		want    string // hosts, comma separated, sorted
	}{
		{"primary", all, ReadPref{Mode: ModePrimary}, "P"},
		{"empty mode is primary", all, ReadPref{}, "P"},
		{"primary without one", noPrimary, ReadPref{Mode: ModePrimary}, ""},
		{"primaryPreferred takes the primary, tags or not", all, ReadPref{Mode: ModePrimaryPreferred, TagSets: tags(dc("north"))}, "P"},
		{"primaryPreferred without primary: secondaries in the window", noPrimary, ReadPref{Mode: ModePrimaryPreferred}, "S1,S3"},
		{"primaryPreferred without primary, tags", noPrimary, ReadPref{Mode: ModePrimaryPreferred, TagSets: tags(dc("west"))}, "S3"},
		{"secondary: window of 15 ms over the fastest", all, ReadPref{Mode: ModeSecondary}, "S1,S3"},
		{"secondary, one tag set", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("west"))}, "S3"},
		{"secondary, tag set with two pairs", all, ReadPref{Mode: ModeSecondary, TagSets: tags(bson.D{{Key: "dc", Value: "east"}, {Key: "rack", Value: "1"}})}, "S1"},
		{"secondary, first matching tag set wins", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("north"), dc("west"), dc("east"))}, "S3"},
		{"secondary, no tag set matches", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("north"))}, ""},
		{"secondary, {} matches all", all, ReadPref{Mode: ModeSecondary, TagSets: tags(bson.D{})}, "S1,S3"},
		{"secondary, fallback to {}", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("north"), bson.D{})}, "S1,S3"},
		{"secondary, non-string tag value never matches", all, ReadPref{Mode: ModeSecondary, TagSets: tags(bson.D{{Key: "dc", Value: int32(1)}})}, ""},
		{"secondary, primary's tags do not count", all, ReadPref{Mode: ModeSecondary, TagSets: tags(bson.D{{Key: "dc", Value: "east"}, {Key: "rack", Value: "2"}})}, ""},
		{"secondary, maxStaleness drops S3 before the tags", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("west")), MaxStaleness: stale}, "S2"},
		{"secondary, maxStaleness without primary (freshest secondary)", noPrimary, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("west")), MaxStaleness: stale}, "S2"},
		{"secondary, maxStaleness counts the heartbeat", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("west")), MaxStaleness: 209 * time.Second}, "S2"},
		{"secondary, maxStaleness just enough", all, ReadPref{Mode: ModeSecondary, TagSets: tags(dc("west")), MaxStaleness: 210 * time.Second}, "S3"},
		{"secondary, staleness measured at the hello's time", []Candidate{p, s4}, ReadPref{Mode: ModeSecondary, MaxStaleness: stale}, "S4"},
		{"secondaryPreferred, no tag match: the primary", all, ReadPref{Mode: ModeSecondaryPreferred, TagSets: tags(dc("north"))}, "P"},
		{"secondaryPreferred, no secondary: the primary", []Candidate{p}, ReadPref{Mode: ModeSecondaryPreferred}, "P"},
		{"secondaryPreferred, nothing", nil, ReadPref{Mode: ModeSecondaryPreferred}, ""},
		{"secondaryPreferred, secondaries", all, ReadPref{Mode: ModeSecondaryPreferred}, "S1,S3"},
		{"nearest: primary and secondaries in the window", all, ReadPref{Mode: ModeNearest}, "P,S1,S3"},
		{"nearest, tags include the primary", all, ReadPref{Mode: ModeNearest, TagSets: tags(dc("east"))}, "P,S1"},
		{"nearest, far member alone matches", all, ReadPref{Mode: ModeNearest, TagSets: tags(dc("west")), MaxStaleness: stale}, "S2"},
		{"nearest, never drops the primary for staleness", []Candidate{p, s3}, ReadPref{Mode: ModeNearest, MaxStaleness: stale}, "P"},
		{"unknown mode", all, ReadPref{Mode: "fastest"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Eligible(tt.members, tt.pref, hb) {
				got = append(got, c.Host)
			}
			slices.Sort(got)
			if s := strings.Join(got, ","); s != tt.want {
				t.Fatalf("Eligible(%s) = %q, want %q", tt.pref, s, tt.want)
			}
			if h := Pick(tt.members, tt.pref, hb); (h == "") != (tt.want == "") || (h != "" && !slices.Contains(got, h)) {
				t.Fatalf("Pick = %q, not one of %q", h, tt.want)
			}
		})
	}
}

// TestReadPrefString: the read preference as mongos prints it in
// FailedToSatisfyReadPreference.
func TestReadPrefString(t *testing.T) {
	for _, tt := range []struct {
		p    ReadPref
		want string
	}{
		{ReadPref{}, `{ mode: "primary" }`},
		{ReadPref{Mode: ModeSecondary, TagSets: []bson.D{{}}}, `{ mode: "secondary" }`},
		{ReadPref{Mode: ModeNearest, TagSets: []bson.D{{{Key: "dc", Value: "east"}, {Key: "rack", Value: "1"}}, {}}, MaxStaleness: 120 * time.Second},
			`{ mode: "nearest", tags: [ { dc: "east", rack: "1" }, {} ], maxStalenessSeconds: 120 }`},
	} {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}

// TestRecordRTT: the first round trip is taken as is, then an EWMA with
// alpha 0.2.
func TestRecordRTT(t *testing.T) {
	s := &ReplicaSet{}
	m := &member{}
	for _, tt := range []struct{ sample, want time.Duration }{
		{10 * time.Millisecond, 10 * time.Millisecond},
		{20 * time.Millisecond, 12 * time.Millisecond},
		{2 * time.Millisecond, 10 * time.Millisecond},
	} {
		s.recordRTT(m, tt.sample)
		if d := m.rtt - tt.want; d < -time.Microsecond || d > time.Microsecond {
			t.Fatalf("after %v: rtt %v, want %v", tt.sample, m.rtt, tt.want)
		}
	}
}
