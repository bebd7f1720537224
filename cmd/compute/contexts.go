package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// envConfig names the variable that points at another configuration file than the default one.
const envConfig = "COMPUTE_CONFIG"

// config is the configuration file: named contexts, each an API URL and a token, and the one in use.
type config struct {
	Current  string          `json:"current,omitempty"`
	Contexts []configContext `json:"contexts"`
}

// configContext is one context of the configuration file.
type configContext struct {
	Name   string `json:"name"`
	APIURL string `json:"api_url"`
	Token  string `json:"token"`
}

// find returns the context named name, or nil.
func (c *config) find(name string) *configContext {
	for i := range c.Contexts {
		if c.Contexts[i].Name == name {
			return &c.Contexts[i]
		}
	}
	return nil
}

// configPath is the configuration file: $COMPUTE_CONFIG, else config.json in compute's directory
// of the user's configuration directory (as os.UserConfigDir finds it, from a.getenv).
func (a *app) configPath() (string, error) {
	if p := a.getenv(envConfig); p != "" {
		return p, nil
	}
	var dir string
	switch runtime.GOOS {
	case "windows":
		dir = a.getenv("AppData")
	case "darwin", "ios":
		if h := a.getenv("HOME"); h != "" {
			dir = filepath.Join(h, "Library", "Application Support")
		}
	default:
		dir = a.getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(dir) {
			dir = ""
			if h := a.getenv("HOME"); h != "" {
				dir = filepath.Join(h, ".config")
			}
		}
	}
	if dir == "" {
		return "", usagef("no configuration directory: set HOME or %s", envConfig)
	}
	return filepath.Join(dir, "compute", "config.json"), nil
}

// maxConfigFile bounds what the configuration file may hold.
const maxConfigFile = 1 << 20

// loadConfig reads the configuration file; a missing file is an empty configuration.
func (a *app) loadConfig() (*config, string, error) {
	path, err := a.configPath()
	if err != nil {
		return nil, "", err
	}
	b, err := readBoundedNow(path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &config{}, path, nil
	}
	if err != nil {
		return nil, path, usagef("cannot read the configuration: %v", err)
	}
	var c config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, path, usagef("cannot read the configuration %s: %v", path, err)
	}
	return &c, path, nil
}

// saveConfig writes the configuration file readable by its owner alone (0600, in a 0700
// directory), through a new file renamed over the old one, so that it is never half written.
func saveConfig(path string, c *config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*.json")
	if err != nil {
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot write the configuration: %w", err)
	}
	return nil
}

// activeContext returns the context a run uses: name (which nameFrom, --context or COMPUTE_CONTEXT,
// gave), else the file's current one; nil when there is none. A name the file does not hold is a
// usage error.
func (a *app) activeContext(name, nameFrom string) (*configContext, error) {
	c, path, err := a.loadConfig()
	if err != nil {
		if name == "" {
			// No context asked for: a broken file must not stop a run the environment configures.
			return nil, nil
		}
		return nil, err
	}
	asked := name != ""
	if !asked {
		name = c.Current
	}
	if name == "" {
		return nil, nil
	}
	ctx := c.find(name)
	if ctx == nil {
		if !asked {
			return nil, usagef("the current context %q is not in %s: run compute context use NAME", name, path)
		}
		return nil, usagef("invalid %s %q: no such context in %s (compute context list)", nameFrom, name, path)
	}
	return ctx, nil
}

// contextView is a context as list prints it: never its token.
type contextRow struct {
	Name    string `json:"name"`
	APIURL  string `json:"api_url"`
	Current bool   `json:"current"`
}

var contextView = view[contextRow]{
	headers: []string{"NAME", "API URL", "CURRENT"},
	row: func(c *contextRow) []string {
		cur := ""
		if c.Current {
			cur = "*"
		}
		return []string{c.Name, c.APIURL, cur}
	},
	name: func(c *contextRow) string { return c.Name },
}

func (a *app) contextCmd() *cobra.Command {
	cmd := group("context", "Keep API URLs and tokens under names, and pick the one in use",
		"  compute context create dev --api-url http://127.0.0.1:8080 --token-file dev.token", "contexts")
	cmd.Long = `A context is an API URL and a token kept under a name in the configuration file (config.json in
the compute directory of your configuration directory, such as ~/.config/compute, or the file
$COMPUTE_CONFIG names), readable by you alone. The token is never printed.

A run takes the URL and the token from one place: the context --context NAME (or COMPUTE_CONTEXT)
names; else the flags and the environment (--api-url over COMPUTE_API_URL, --token-file over
COMPUTE_API_TOKEN) when either is given; else the current context ("context use"). A token goes
only to the URL it came with: a URL from a flag or the environment beside a context's token (or a
token beside a context's URL) is refused before anything is sent.`
	cmd.AddCommand(a.contextCreateCmd(), a.contextUseCmd(), a.contextListCmd(), a.contextDeleteCmd())
	return cmd
}

// local wraps the code of a command that sends nothing (a context command): it marks the run as
// past the usage checks.
func (a *app) local(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := a.checkOutput(cmd); err != nil {
			return err
		}
		a.running = true
		return fn(cmd, args)
	}
}

func (a *app) contextCreateCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "create NAME",
		Short: "Keep an API URL and a token under a name, and use it from now on",
		Long: `Keep the API URL (--api-url, else COMPUTE_API_URL) and the token (--token-file, else
COMPUTE_API_TOKEN) under NAME, and make it the current context. An existing NAME is replaced only
with --force.`,
		Example: `  compute context create prod --api-url https://api.example.com --token-file ~/prod.token
  COMPUTE_API_TOKEN=... compute context create dev --api-url http://127.0.0.1:8080`,
		Args: exactArgs("NAME"),
		RunE: a.local(func(cmd *cobra.Command, args []string) error {
			name := args[0]
			url := cmpOrEnv(a.apiURL, a.getenv(compute.EnvBaseURL))
			if url == "" {
				return usagef("no API URL: pass --api-url or set %s", compute.EnvBaseURL)
			}
			token, _, err := a.flagOrEnvToken(orBackground(cmd.Context()))
			if err != nil {
				return err
			}
			if token == "" {
				return usagef("no API token: pass --token-file or set %s", compute.EnvToken)
			}
			// The SDK checks the URL and the token as a run would use them; nothing is sent.
			if _, err := a.newClient(token, append(a.clientOptions(url), compute.WithoutRateLimit())...); err != nil {
				return usagef("cannot use this API URL and token: %v", err)
			}
			c, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			if old := c.find(name); old != nil {
				if !force {
					return usagef("context %q exists: pass --force to replace it", name)
				}
				old.APIURL, old.Token = url, token
			} else {
				c.Contexts = append(c.Contexts, configContext{Name: name, APIURL: url, Token: token})
			}
			c.Current = name
			if err := saveConfig(path, c); err != nil {
				return err
			}
			a.note("context %s created in %s, and in use", name, path)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace a context with the same name")
	return quiet(a, cmd, nil)
}

func (a *app) contextUseCmd() *cobra.Command {
	return quiet(a, &cobra.Command{
		Use:               "use NAME",
		Short:             "Use a context from now on",
		Example:           "  compute context use prod",
		Args:              exactArgs("NAME"),
		ValidArgsFunction: a.completeContexts,
		RunE: a.local(func(_ *cobra.Command, args []string) error {
			c, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			if c.find(args[0]) == nil {
				return a.noContext(c, path, args[0])
			}
			c.Current = args[0]
			if err := saveConfig(path, c); err != nil {
				return err
			}
			a.note("context %s in use", args[0])
			return nil
		}),
	}, nil)
}

func (a *app) contextListCmd() *cobra.Command {
	return checkView(a, &cobra.Command{
		Use:     "list",
		Short:   "List the contexts (never their tokens)",
		Example: "  compute context list",
		Args:    cobra.NoArgs,
		RunE: a.local(func(_ *cobra.Command, _ []string) error {
			c, _, err := a.loadConfig()
			if err != nil {
				return err
			}
			rows := []contextRow{}
			for _, ctx := range c.Contexts {
				rows = append(rows, contextRow{Name: ctx.Name, APIURL: ctx.APIURL, Current: ctx.Name == c.Current})
			}
			return printItems(a, contextView, rows)
		}),
	}, contextView)
}

func (a *app) contextDeleteCmd() *cobra.Command {
	return quiet(a, &cobra.Command{
		Use:               "delete NAME",
		Short:             "Forget a context and its token",
		Example:           "  compute context delete dev",
		Args:              exactArgs("NAME"),
		ValidArgsFunction: a.completeContexts,
		RunE: a.local(func(_ *cobra.Command, args []string) error {
			c, path, err := a.loadConfig()
			if err != nil {
				return err
			}
			i := slices.IndexFunc(c.Contexts, func(ctx configContext) bool { return ctx.Name == args[0] })
			if i < 0 {
				return a.noContext(c, path, args[0])
			}
			c.Contexts = slices.Delete(c.Contexts, i, i+1)
			if c.Current == args[0] {
				c.Current = ""
			}
			if err := saveConfig(path, c); err != nil {
				return err
			}
			a.note("context %s deleted", args[0])
			return nil
		}),
	}, nil)
}

// noContext is the error of a context name the file does not hold; it lists those it holds.
func (a *app) noContext(c *config, path, name string) error {
	var names []string
	for _, ctx := range c.Contexts {
		names = append(names, ctx.Name)
	}
	if len(names) == 0 {
		return usagef("no context %q: %s holds none (compute context create NAME)", name, path)
	}
	return usagef("no context %q: want one of %s", name, strings.Join(names, ", "))
}

// completeContexts completes a context name from the configuration file.
func (a *app) completeContexts(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, _, err := a.loadConfig()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, ctx := range c.Contexts {
		names = append(names, ctx.Name)
	}
	return names, cobra.ShellCompDirectiveNoFileComp
}

// cmpOrEnv returns the flag's value, else the environment's.
func cmpOrEnv(flag, env string) string {
	if flag != "" {
		return flag
	}
	return env
}
