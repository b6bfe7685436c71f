package balancer

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/relaydb/relaydb/internal/bsonx"
)

// DefaultHotOpsPerSec is the load (operations per second on one shard's
// part of a collection, over the shards' sample window) above which a
// range is split and half of it moved (config.settings {_id: "balancer",
// hotRangeOpsPerSec}; relaydb's own setting). Ordinary small tests stay
// far below it.
const DefaultHotOpsPerSec = 2500

// Config is what config.settings says about balancing, as MongoDB's
// BalancerConfiguration reads it: {_id: "balancer", mode, stopped,
// activeWindow: {start, stop}} and {_id: "chunksize", value: MB}.
type Config struct {
	Mode         string  // "full" (default: no document, as the issue asks) or "off"
	Window       *Window // nil: balance at any time
	ChunkSize    int64   // bytes; DefaultChunkSize when unset
	HotOpsPerSec float64 // DefaultHotOpsPerSec when unset; < 0 turns load splitting off
}

// Window is the balancer's activeWindow: minutes since midnight, local
// time of the config server primary (as MongoDB's). Start != Stop.
type Window struct{ Start, Stop int }

// Contains reports whether t falls inside the window, with MongoDB's
// semantics: both ends included; a Stop before Start spans midnight.
func (w Window) Contains(t time.Time) bool {
	now := t.Hour()*60 + t.Minute()
	if w.Start < w.Stop {
		return now >= w.Start && now <= w.Stop
	}
	return now >= w.Start || now <= w.Stop
}

// ParseConfig reads the balancer and chunksize documents of
// config.settings (either may be nil). A malformed activeWindow is an
// error: the round does not balance, as MongoDB refuses such settings.
func ParseConfig(balancerDoc, chunkSizeDoc bson.D) (Config, error) {
	cfg := Config{Mode: "full", ChunkSize: DefaultChunkSize, HotOpsPerSec: DefaultHotOpsPerSec}
	if mode, ok := bsonx.Get(balancerDoc, "mode"); ok {
		s, _ := mode.(string)
		if s != "full" && s != "off" {
			return cfg, fmt.Errorf("balancer: config.settings balancer mode %v is not \"full\" or \"off\"", mode)
		}
		cfg.Mode = s
	} else if stopped, _ := bsonx.Get(balancerDoc, "stopped"); stopped == true {
		cfg.Mode = "off"
	}
	if w, ok := bsonx.Get(balancerDoc, "activeWindow"); ok {
		win, err := parseWindow(w)
		if err != nil {
			return cfg, err
		}
		cfg.Window = &win
	}
	if v, ok := bsonx.Get(balancerDoc, "hotRangeOpsPerSec"); ok {
		if f, isNum := bsonx.AsFloat64(v); isNum && f != 0 {
			cfg.HotOpsPerSec = f
		}
	}
	if v, ok := bsonx.Get(chunkSizeDoc, "value"); ok {
		if mb, isNum := bsonx.AsFloat64(v); isNum && mb > 0 && mb <= 1024 {
			cfg.ChunkSize = int64(mb * (1 << 20))
		}
	}
	return cfg, nil
}

func parseWindow(v any) (Window, error) {
	d, _ := v.(bson.D)
	start, okS := bsonx.Get(d, "start")
	stop, okE := bsonx.Get(d, "stop")
	if !okS || !okE {
		return Window{}, fmt.Errorf("balancer: activeWindow needs both start and stop: %v", v)
	}
	s, err := parseHHMM(start)
	if err != nil {
		return Window{}, err
	}
	e, err := parseHHMM(stop)
	if err != nil {
		return Window{}, err
	}
	if s == e {
		return Window{}, fmt.Errorf("balancer: activeWindow start and stop times must be different")
	}
	return Window{Start: s, Stop: e}, nil
}

// parseHHMM reads "HH:MM" (24-hour clock) as minutes since midnight.
func parseHHMM(v any) (int, error) {
	s, _ := v.(string)
	h, m, ok := strings.Cut(s, ":")
	hh, errH := strconv.Atoi(h)
	mm, errM := strconv.Atoi(m)
	if !ok || errH != nil || errM != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 {
		return 0, fmt.Errorf("balancer: activeWindow time %v is not \"HH:MM\"", v)
	}
	return hh*60 + mm, nil
}
