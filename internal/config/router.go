package config

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/relaydb/relaydb/internal/tlsconf"
)

// Router configures `relaydb router`, the query router of a sharded
// cluster (mongos's role). Zero fields mean the default written on each.
type Router struct {
	// ConfigDB is the config server replica set, "setName/host:port,...".
	// Required. YAML sharding.configDB, flag --configdb.
	ConfigDB string
	// Port to listen on. Default 27017. YAML net.port, flag --port.
	Port int
	// BindIP is a comma-separated list of addresses to listen on.
	// Default "127.0.0.1". YAML net.bindIp, flag --bind_ip.
	BindIP string
	// MaxConns limits simultaneous client connections. Default 1000000.
	// YAML net.maxIncomingConnections, flag --maxConns.
	MaxConns int
	// IPAllowlist limits the addresses clients may connect from, as a
	// data node's (allowlist.go), until a list is stored on the config
	// servers (setIPAllowlist), which the router follows instead.
	IPAllowlist IPAllowlist
	// LogPath is the log file; "" logs to stderr. YAML systemLog.path,
	// flag --logpath.
	LogPath string
	// LogAppend appends to LogPath instead of truncating it. YAML
	// systemLog.logAppend, flag --logappend.
	LogAppend bool
	// LogVerbosity is 0 (default) to 5. YAML systemLog.verbosity.
	LogVerbosity int
	// TLS is net.tls.* (flags --tls*), as for serve (tls.go).
	TLS tlsconf.Options
	// KeyFile authenticates the router to the cluster's members as
	// __system and makes clients authenticate (router_security.go).
	// YAML security.keyFile, flag --keyFile. Default "": no auth.
	KeyFile string
	// ClusterAuthMode is keyFile (the default with a key file). YAML
	// security.clusterAuthMode, flag --clusterAuthMode.
	ClusterAuthMode string
	// NoScripting disables server-side JavaScript in the router (merging
	// a split $accumulator, mapReduce on sharded collections), as mongos's
	// --noscripting. Default false. YAML security.javascriptEnabled: false.
	NoScripting bool
	// ConfigPath is the YAML file read by ResolveRouter. Flag --config.
	ConfigPath string
	// Parameters are --setParameter name=value (router_params.go).
	Parameters map[string]string
	// Warnings collects notes from loading, for the router to log.
	Warnings []string
}

// EnsureDefaults replaces zero fields with their defaults.
func (r *Router) EnsureDefaults() {
	if r.Port == 0 {
		r.Port = DefaultPort
	}
	if r.BindIP == "" {
		r.BindIP = DefaultBindIP
	}
	if r.MaxConns == 0 {
		r.MaxConns = DefaultMaxConns
	}
}

// Validate reports every invalid field, joined into one error.
func (r *Router) Validate() error {
	var errs []error
	if r.ConfigDB == "" {
		errs = append(errs, errors.New("configdb is required (--configdb setName/host:port,...)"))
	} else if _, _, err := ParseConfigDB(r.ConfigDB); err != nil {
		errs = append(errs, err)
	}
	if r.Port < 1 || r.Port > 65535 {
		errs = append(errs, fmt.Errorf("port %d is out of range (1-65535)", r.Port))
	}
	if err := validateBindIP(r.BindIP); err != nil {
		errs = append(errs, err)
	}
	if err := r.IPAllowlist.validate(); err != nil {
		errs = append(errs, err)
	}
	if r.MaxConns < 1 {
		errs = append(errs, fmt.Errorf("maxConns %d must be at least 1", r.MaxConns))
	}
	if r.LogVerbosity < 0 || r.LogVerbosity > MaxLogVerbosity {
		errs = append(errs, fmt.Errorf("systemLog.verbosity %d is out of range (0-%d)", r.LogVerbosity, MaxLogVerbosity))
	}
	if err := r.validateSecurity(); err != nil {
		errs = append(errs, err)
	}
	if err := r.TLS.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// BindRouterFlags registers mongos's flag names on fs, bound to r's fields,
// after filling r's defaults. After fs.Parse, call ResolveRouter.
func BindRouterFlags(fs *flag.FlagSet, r *Router) {
	r.EnsureDefaults()
	fs.StringVar(&r.ConfigDB, "configdb", r.ConfigDB, "config server replica set: setName/host:port[,host:port...]")
	fs.IntVar(&r.Port, "port", r.Port, "TCP port to listen on")
	fs.StringVar(&r.BindIP, "bind_ip", r.BindIP, "comma-separated addresses to listen on")
	fs.BoolFunc("bind_ip_all", "listen on all IPv4 and IPv6 addresses", func(string) error {
		r.BindIP = "0.0.0.0,::"
		return nil
	})
	fs.IntVar(&r.MaxConns, "maxConns", r.MaxConns, "maximum simultaneous connections")
	fs.StringVar(&r.LogPath, "logpath", r.LogPath, "log file (default stderr)")
	fs.BoolVar(&r.LogAppend, "logappend", r.LogAppend, "append to the log file instead of truncating it")
	fs.StringVar(&r.ConfigPath, "config", r.ConfigPath, "mongos-style YAML configuration file")
	bindTLSFlags(fs, &r.TLS)
	bindAllowlistFlags(fs, &r.IPAllowlist)
	bindRouterSecurityFlags(fs, r)
	bindRouterParameterFlags(fs, r)
}

// ResolveRouter applies the config file (flags given explicitly win, as
// with Resolve) and validates.
func ResolveRouter(fs *flag.FlagSet, r *Router) error {
	if r.ConfigPath != "" {
		var order []string
		explicit := map[string]string{}
		fs.Visit(func(f *flag.Flag) {
			if !reapplicable(f) { // flags.go
				return
			}
			explicit[f.Name] = f.Value.String()
			order = append(order, f.Name)
		})
		data, err := os.ReadFile(r.ConfigPath)
		if err != nil {
			return fmt.Errorf("config: %w", err)
		}
		if err := parseRouterYAML(data, r); err != nil {
			return fmt.Errorf("config %s: %w", r.ConfigPath, err)
		}
		for _, name := range order {
			if err := fs.Set(name, explicit[name]); err != nil {
				return fmt.Errorf("config: re-applying --%s: %w", name, err)
			}
		}
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// routerOptions are the mongos-style YAML options the router honours.
var routerOptions = map[string]func(n *yaml.Node, r *Router) error{
	"sharding.configDB":          func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!str", &r.ConfigDB) },
	"net.port":                   func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!int", &r.Port) },
	"net.bindIp":                 func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!str", &r.BindIP) },
	"net.maxIncomingConnections": func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!int", &r.MaxConns) },
	"systemLog.path":             func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!str", &r.LogPath) },
	"systemLog.logAppend":        func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!bool", &r.LogAppend) },
	"systemLog.verbosity":        func(n *yaml.Node, r *Router) error { return decodeScalar(n, "!!int", &r.LogVerbosity) },
	"setParameter": func(n *yaml.Node, r *Router) error { // yaml_params.go
		return setParameterSection(n, r.Parameters, r.setParameter)
	},
	"systemLog.destination": func(n *yaml.Node, r *Router) error {
		var dest string
		if err := decodeScalar(n, "!!str", &dest); err != nil {
			return err
		}
		if dest != "file" && dest != "syslog" {
			return fmt.Errorf("%q is invalid (file or syslog)", dest)
		}
		if dest == "syslog" {
			r.Warnings = append(r.Warnings, "systemLog.destination syslog is not supported; logging to stderr")
		}
		return nil
	},
}

func parseRouterYAML(data []byte, r *Router) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return err
	}
	if len(doc.Content) == 0 {
		return nil
	}
	leaves := map[string]*yaml.Node{}
	if err := flatten("", doc.Content[0], leaves); err != nil {
		return err
	}
	var errs []error
	for _, path := range slices.Sorted(maps.Keys(leaves)) {
		n := leaves[path]
		opt, ok := routerOptions[path]
		switch {
		case ok:
			if err := opt(n, r); err != nil {
				errs = append(errs, fmt.Errorf("line %d: %s: %w", n.Line, path, err))
			}
		case isUnsupported(path):
			errs = append(errs, fmt.Errorf("line %d: unsupported option: %s", n.Line, path))
		default:
			errs = append(errs, fmt.Errorf("line %d: unrecognized option: %s", n.Line, path))
		}
	}
	return errors.Join(errs...)
}
