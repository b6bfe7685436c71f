package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// option applies one YAML leaf to s.
type option func(n *yaml.Node, s *Serve) error

// serveOptions are the mongod-style YAML options relaydb honours, by dotted
// path. relaydb.* holds relaydb's own options.
var serveOptions = map[string]option{
	"net.port":                         intOpt(func(s *Serve) *int { return &s.Port }),
	"net.bindIp":                       stringOpt(func(s *Serve) *string { return &s.BindIP }),
	"net.maxIncomingConnections":       intOpt(func(s *Serve) *int { return &s.MaxConns }),
	"storage.dbPath":                   stringOpt(func(s *Serve) *string { return &s.DBPath }),
	"storage.journal.commitIntervalMs": commitIntervalOpt,
	"storage.oplogMinRetentionHours":   ignoredOpt,
	"storage.journal.enabled":          ignoredOpt,
	"replication.oplogSizeMB":          intOpt(func(s *Serve) *int { return &s.OplogSizeMB }),
	"replication.replSetName":          stringOpt(func(s *Serve) *string { return &s.ReplSet }),
	"systemLog.destination":            nil, // handled by applySystemLog
	"systemLog.path":                   nil,
	"systemLog.logAppend":              boolOpt(func(s *Serve) *bool { return &s.LogAppend }),
	"systemLog.verbosity":              intOpt(func(s *Serve) *int { return &s.LogVerbosity }),
	"systemLog.quiet":                  ignoredOpt,
	"systemLog.timeStampFormat":        ignoredOpt,
	"relaydb.metricsPort":              intOpt(func(s *Serve) *int { return &s.MetricsPort }),
	"relaydb.inMemory":                 boolOpt(func(s *Serve) *bool { return &s.InMemory }),
	"setParameter":                     serveSetParameterOpt, // yaml_params.go
}

// unsupportedSections are mongod options relaydb knows but does not
// implement: refusing them is safer than silently running without them.
var unsupportedSections = []string{
	"sharding.archiveMovedChunks", "net.tls", "net.ssl", "net.compression", "net.unixDomainSocket",
	"net.ipv6", "processManagement", "operationProfiling", "auditLog",
	"storage.engine", "storage.inMemory", "storage.directoryPerDB",
	"storage.wiredTiger.collectionConfig", "storage.wiredTiger.indexConfig",
	"storage.wiredTiger.engineConfig.journalCompressor", "storage.wiredTiger.engineConfig.directoryForIndexes",
	"storage.wiredTiger.engineConfig.zstdCompressionLevel",
	"replication.enableMajorityReadConcern", "snmp", "cloud", "systemLog.component",
}

// LoadYAML reads a mongod-style YAML configuration file into s, setting only
// the options present. Unknown options and known-but-unsupported ones are
// errors naming the option, as mongod refuses unknown options.
func LoadYAML(path string, into *Serve) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := parseYAML(data, into); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return nil
}

func parseYAML(data []byte, s *Serve) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 { // empty file
		return nil
	}
	leaves := map[string]*yaml.Node{}
	if err := flatten("", doc.Content[0], leaves); err != nil {
		return err
	}
	var errs []error
	for _, path := range slices.Sorted(maps.Keys(leaves)) {
		if err := applyOption(path, leaves[path], s); err != nil {
			errs = append(errs, err)
		}
	}
	if err := applySystemLog(leaves, s); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// flatten collects the leaves of a mapping by dotted path; it stops at known
// leaves and at unsupported sections so their values are never walked.
func flatten(prefix string, n *yaml.Node, out map[string]*yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping", n.Line, orRoot(prefix))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		path := n.Content[i].Value
		if prefix != "" {
			path = prefix + "." + path
		}
		v := n.Content[i+1]
		if _, known := serveOptions[path]; known || v.Kind != yaml.MappingNode || isUnsupported(path) {
			if _, dup := out[path]; dup {
				return fmt.Errorf("line %d: duplicate option %s", v.Line, path)
			}
			out[path] = v
			continue
		}
		if err := flatten(path, v, out); err != nil {
			return err
		}
	}
	return nil
}

func orRoot(prefix string) string {
	if prefix == "" {
		return "the document"
	}
	return prefix
}

func isUnsupported(path string) bool {
	for _, u := range unsupportedSections {
		if path == u || strings.HasPrefix(path, u+".") {
			return true
		}
	}
	return false
}

func applyOption(path string, n *yaml.Node, s *Serve) error {
	opt, known := serveOptions[path]
	switch {
	case known && opt == nil:
		return nil // handled elsewhere
	case known:
		if err := opt(n, s); err != nil {
			return fmt.Errorf("line %d: %s: %w", n.Line, path, err)
		}
		if isIgnored(path) {
			s.Warnings = append(s.Warnings, fmt.Sprintf("option %s is accepted but ignored", path))
		}
		return nil
	case isUnsupported(path):
		return fmt.Errorf("line %d: unsupported option: %s", n.Line, path)
	}
	return fmt.Errorf("line %d: unrecognized option: %s", n.Line, path)
}
