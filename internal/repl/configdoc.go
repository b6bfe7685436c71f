package repl

import (
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
	"github.com/relaydb/relaydb/internal/mongoerr"
	"github.com/relaydb/relaydb/internal/repl/topology"
)

// configDoc renders cfg as MongoDB's replica-set config document.
func configDoc(cfg topology.Config) bson.D {
	members := make(bson.A, len(cfg.Members))
	for i, m := range cfg.Members {
		members[i] = memberDoc(m)
	}
	return bson.D{
		{Key: "_id", Value: cfg.Name},
		{Key: "version", Value: int32(cfg.Version)},
		{Key: "term", Value: int32(cfg.Term)},
		{Key: "protocolVersion", Value: int64(1)},
		{Key: "writeConcernMajorityJournalDefault", Value: cfg.WriteConcernMajorityJournalDefault},
		{Key: "members", Value: members},
		{Key: "settings", Value: settingsDoc(cfg.Settings)},
	}
}

func memberDoc(m topology.MemberConfig) bson.D {
	tags := bson.D{}
	for _, k := range sortedKeys(m.Tags) {
		tags = append(tags, bson.E{Key: k, Value: m.Tags[k]})
	}
	return bson.D{
		{Key: "_id", Value: int32(m.ID)}, {Key: "host", Value: m.Host},
		{Key: "arbiterOnly", Value: m.ArbiterOnly}, {Key: "buildIndexes", Value: m.BuildIndexes},
		{Key: "hidden", Value: m.Hidden}, {Key: "priority", Value: m.Priority},
		{Key: "tags", Value: tags}, {Key: "secondaryDelaySecs", Value: int64(m.SecondaryDelaySecs)},
		{Key: "votes", Value: int32(m.Votes)},
	}
}

func settingsDoc(s topology.Settings) bson.D {
	modes := bson.D{}
	for _, name := range sortedKeys(s.GetLastErrorModes) {
		mode := bson.D{}
		for _, tag := range sortedKeys(s.GetLastErrorModes[name]) {
			mode = append(mode, bson.E{Key: tag, Value: int32(s.GetLastErrorModes[name][tag])})
		}
		modes = append(modes, bson.E{Key: name, Value: mode})
	}
	w := s.GetLastErrorDefaults.W
	if w == nil {
		w = int32(1)
	}
	d := bson.D{
		{Key: "chainingAllowed", Value: s.ChainingAllowed},
		{Key: "heartbeatIntervalMillis", Value: millis(s.HeartbeatInterval, topology.DefaultHeartbeatInterval)},
		{Key: "heartbeatTimeoutSecs", Value: int32(10)},
		{Key: "electionTimeoutMillis", Value: millis(s.ElectionTimeout, topology.DefaultElectionTimeout)},
		{Key: "catchUpTimeoutMillis", Value: millis(s.CatchUpTimeout, topology.DefaultCatchUpTimeout)},
		{Key: "catchUpTakeoverDelayMillis", Value: int64(30000)},
		{Key: "getLastErrorModes", Value: modes},
		{Key: "getLastErrorDefaults", Value: bson.D{{Key: "w", Value: w},
			{Key: "wtimeout", Value: int32(s.GetLastErrorDefaults.WTimeout / time.Millisecond)}}},
	}
	if s.ChainingMode != "" {
		d = append(d, bson.E{Key: "chainingMode", Value: s.ChainingMode},
			bson.E{Key: "chainFanout", Value: int32(s.ChainFanout)})
	}
	return d
}

func millis(d, def time.Duration) int64 {
	if d == 0 {
		d = def
	}
	if d < 0 {
		return -1
	}
	return d.Milliseconds()
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// parseConfig reads a config document (replSetInitiate, replSetReconfig,
// local.system.replset) with MongoDB's member and settings defaults.
func parseConfig(doc bson.D) (topology.Config, error) {
	cfg := topology.NewConfig("")
	for _, f := range doc {
		if err := setConfigField(&cfg, f); err != nil {
			return topology.Config{}, err
		}
	}
	return cfg, nil
}

func badConfig(format string, args ...any) error {
	return mongoerr.New(mongoerr.InvalidReplicaSetConfig, format, args...)
}

func setConfigField(cfg *topology.Config, f bson.E) error {
	switch f.Key {
	case "_id":
		s, ok := f.Value.(string)
		if !ok {
			return badConfig("_id field must be a string")
		}
		cfg.Name = s
	case "version":
		cfg.Version = asInt(f.Value)
	case "term":
		cfg.Term = asInt(f.Value)
	case "writeConcernMajorityJournalDefault":
		cfg.WriteConcernMajorityJournalDefault = truthy(f.Value)
	case "members":
		return parseMembers(cfg, f.Value)
	case "settings":
		d, ok := f.Value.(bson.D)
		if !ok {
			return badConfig("settings field must be an object")
		}
		return parseSettings(&cfg.Settings, d)
	case "protocolVersion":
		if v := asInt(f.Value); v != 1 {
			return badConfig("Only protocolVersion 1 is supported, not %d", v)
		}
	case "configsvr", "$db":
	default:
		return mongoerr.New(mongoerr.BadValue, "Unexpected field %s in replica set configuration", f.Key)
	}
	return nil
}

func parseMembers(cfg *topology.Config, v any) error {
	arr, ok := v.(bson.A)
	if !ok {
		return badConfig("members field must be an array")
	}
	cfg.Members = nil
	for i, e := range arr {
		d, ok := e.(bson.D)
		if !ok {
			return badConfig("members.%d must be an object", i)
		}
		m, err := parseMember(d)
		if err != nil {
			return err
		}
		cfg.Members = append(cfg.Members, m)
	}
	return nil
}

func parseMember(d bson.D) (topology.MemberConfig, error) {
	m := topology.NewMember(-1, "")
	priSet := false
	for _, f := range d {
		switch f.Key {
		case "_id":
			m.ID = int(asInt(f.Value))
		case "host":
			m.Host, _ = f.Value.(string)
		case "priority":
			m.Priority, _ = bsonx.AsFloat64(f.Value)
			priSet = true
		case "votes":
			m.Votes = int(asInt(f.Value))
		case "hidden":
			m.Hidden = truthy(f.Value)
		case "arbiterOnly":
			m.ArbiterOnly = truthy(f.Value)
		case "buildIndexes":
			m.BuildIndexes = truthy(f.Value)
		case "secondaryDelaySecs", "slaveDelay":
			m.SecondaryDelaySecs = int(asInt(f.Value))
		case "tags":
			tags, err := parseTags(f.Value)
			if err != nil {
				return m, err
			}
			m.Tags = tags
		default:
			return m, mongoerr.New(mongoerr.BadValue, "Unexpected field %s in member configuration", f.Key)
		}
	}
	if m.ArbiterOnly && !priSet {
		m.Priority = 0
	}
	return m, nil
}

func parseTags(v any) (map[string]string, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, badConfig("tags field must be an object")
	}
	tags := map[string]string{}
	for _, t := range d {
		s, ok := t.Value.(string)
		if !ok {
			return nil, badConfig("tags.%s field has non-string value", t.Key)
		}
		tags[t.Key] = s
	}
	return tags, nil
}

func parseSettings(s *topology.Settings, d bson.D) error {
	for _, f := range d {
		switch f.Key {
		case "chainingAllowed":
			s.ChainingAllowed = truthy(f.Value)
		case "chainingMode":
			s.ChainingMode, _ = f.Value.(string)
		case "chainFanout":
			s.ChainFanout = int(asInt(f.Value))
		case "heartbeatIntervalMillis":
			s.HeartbeatInterval = time.Duration(asInt(f.Value)) * time.Millisecond
		case "electionTimeoutMillis":
			s.ElectionTimeout = time.Duration(asInt(f.Value)) * time.Millisecond
		case "catchUpTimeoutMillis":
			s.CatchUpTimeout = time.Duration(asInt(f.Value)) * time.Millisecond
		case "getLastErrorModes":
			modes, err := parseModes(f.Value)
			if err != nil {
				return err
			}
			s.GetLastErrorModes = modes
		case "getLastErrorDefaults":
			s.GetLastErrorDefaults = parseWC(f.Value)
		}
	}
	return nil
}

func parseModes(v any) (map[string]map[string]int, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, badConfig("settings.getLastErrorModes must be an object")
	}
	out := map[string]map[string]int{}
	for _, m := range d {
		md, ok := m.Value.(bson.D)
		if !ok {
			return nil, badConfig("settings.getLastErrorModes.%s must be an object", m.Key)
		}
		out[m.Key] = map[string]int{}
		for _, t := range md {
			out[m.Key][t.Key] = int(asInt(t.Value))
		}
	}
	return out, nil
}

func parseWC(v any) topology.WriteConcern {
	d, _ := v.(bson.D)
	var wc topology.WriteConcern
	for _, f := range d {
		switch f.Key {
		case "w":
			wc.W = f.Value
		case "j":
			wc.J = truthy(f.Value)
		case "wtimeout":
			wc.WTimeout = time.Duration(asInt(f.Value)) * time.Millisecond
		}
	}
	return wc
}

func asInt(v any) int64 {
	n, _ := bsonx.AsInt64(v)
	return n
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case nil:
		return false
	}
	f, ok := bsonx.AsFloat64(v)
	return ok && f != 0
}
