package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"text/template"
	"time"
	"unicode"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// app is one run of the command line: where it writes, what environment it reads and how it
// reaches the service. main builds one from the process; tests build one with their own writers,
// environment and client factory.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// stderrTTY turns the progress of waits, and the notes of commands that print no result, on.
	stderrTTY bool
	// newClient builds the SDK client (compute.NewClient, or a test's wrapper of it).
	newClient func(token string, opts ...compute.Option) (*compute.Client, error)
	// newRedisLimiter builds the limiter shared through Redis when COMPUTE_REDIS_URL is set.
	newRedisLimiter func(rawURL, token string, rps float64, warn func(error)) (compute.Limiter, func(), error)
	// newFileLimiter builds the limiter shared through a file by the processes of this machine
	// (nil: each process paces alone, as in most tests).
	newFileLimiter func(token string, rps float64, dir string, warn func(error)) (compute.Limiter, func(), error)

	// The global flags. output is the format that the -o flags (outputs) choose; noHeader, columns
	// and template are the rest of what they ask.
	outputs   []string
	output    string
	noHeader  bool
	columns   []string
	template  *template.Template
	tokenFile string
	apiURL    string
	timeout   time.Duration
	rate      float64
	// contextName is --context; debug is --debug; insecureHTTP is --insecure-http.
	contextName  string
	debug        bool
	insecureHTTP bool
	pollInterval time.Duration

	// running is set once a command's own code runs: an error before that (a flag, an argument, a
	// missing required flag) is a usage error.
	running bool
	// fleetMode is set while a command works on several resources at once: progress then writes
	// a line per status change, with no line rewritten in place.
	fleetMode bool
	closers   []func()
	// viewChecks holds each command's checks of -o against what it prints (checkView, quiet).
	viewChecks map[*cobra.Command][]func() error
	// maxWhole, when set, replaces maxWholeBytes (a test's smaller bound).
	maxWhole int
	// httpClient, when set, is the client whose transport the SDK sends through (a test's).
	httpClient *http.Client
	// redactor hides the token in what the command prints, once the token is read.
	redactor func(string) string
	// creating follows the sends of a create command's create (nil in other commands).
	creating *createWatch
	// from names where the URL and the token came from ("the context prod"); contextUsed is the
	// context's name when one gave them.
	from, contextUsed string
}

// run executes the command line args and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	defer func() {
		for _, c := range a.closers {
			c()
		}
	}()
	root := a.rootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	if !a.running {
		code = exitUsage
	}
	if errors.As(err, new(*reportedError)) {
		return code // each resource's failure is on its line already
	}
	for _, line := range a.errorLines(didYouMean(root, err)) {
		fmt.Fprintln(a.stderr, line)
	}
	if code == exitUsage {
		if cmd, _, ferr := root.Find(args); ferr == nil {
			fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	return code
}

// rootCmd builds the whole command tree.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "compute",
		Short: "Manage Compute API resources from a shell or a script",
		Long: `compute manages instances, security groups, floating IPs, volumes, filesystems, SSH keys,
snapshots and images of the Compute Resource Management API.

It reads the API's base URL from COMPUTE_API_URL and the token from COMPUTE_API_TOKEN (or
--api-url and --token-file), else from the context in use ("compute context --help"). A create never runs twice: run it again after a failure and it adopts what the
first run made. Results go to stdout (-o table, json, yaml, jsonl, name or id); progress, notes and
errors go to stderr. The exit code tells failures apart: see "compute help exit-codes".`,
		Example: `  export COMPUTE_API_URL=https://api.example.com COMPUTE_API_TOKEN=...
  compute instance list
  compute instance create --name web-1 --type vcpu-2_memory-4g --region NORD-NO-KRS-1 \
      --image ubuntu-24.04 --ssh-key key-ci --wait -o id`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		Args:              cobra.NoArgs,
		PersistentPreRunE: a.checkGlobalFlags,
		RunE:              func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		Version:           cliVersion(),
	}
	root.SetVersionTemplate("compute {{.Version}}\n")
	// Set before the completion command is made: it keeps the writer it sees then.
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return noTokenFlag(err) })
	f := root.PersistentFlags()
	f.StringArrayVarP(&a.outputs, "output", "o", []string{"table"}, "output format: table, json, yaml, jsonl, name or id; for a table also noheader and columns=id,name,...; or format='{{.ID}} {{.Name}}' (a Go template over each resource); repeatable")
	f.StringVar(&a.tokenFile, "token-file", "", "read the API token from this file instead of COMPUTE_API_TOKEN")
	f.StringVar(&a.apiURL, "api-url", "", "the API's base URL, instead of COMPUTE_API_URL")
	f.DurationVar(&a.timeout, "timeout", 0, "bound the whole command, waits included (0: no bound but the SDK's, 30s an attempt and 1h a wait)")
	f.Float64Var(&a.rate, "rate", compute.DefaultRateLimit, "requests per second, shared by this machine's processes that use the token (or through Redis when COMPUTE_REDIS_URL is set); 0 turns the client-side pacing off")
	f.DurationVar(&a.pollInterval, "poll-interval", 0, "poll this often while waiting (at least 200ms; default: from 1s, growing to 15s)")
	f.StringVar(&a.contextName, "context", "", "use this context (compute context list) instead of the current one")
	f.BoolVar(&a.debug, "debug", false, "write each request and response on stderr (the token left out)")
	f.BoolVar(&a.insecureHTTP, "insecure-http", false, "allow plain http to an address that is not loopback (a development server); the token then crosses the network in clear")
	_ = root.RegisterFlagCompletionFunc("context", a.completeContexts)
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(append(slices.Clone(outputFormats), noHeaderOption, columnsOption, formatOption), cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveNoSpace))

	root.AddCommand(
		a.instanceCmd(),
		a.securityGroupCmd(),
		a.floatingIPCmd(),
		a.volumeCmd(),
		a.filesystemCmd(),
		a.sshKeyCmd(),
		a.snapshotCmd(),
		a.imageCmd(),
		a.quotaCmd(),
		a.reservationCmd(),
		a.availabilityCmd(),
		a.contextCmd(),
		a.versionCmd(),
	)
	a.registerCompletions(root)
	root.AddCommand(exitCodesTopic())
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		switch c.Name() {
		case "help":
			c.Example = "  compute help instance create"
		case "completion":
			c.Example = "  source <(compute completion bash)"
			for _, sub := range c.Commands() {
				sub.Example = fmt.Sprintf("  compute completion %s > compute.%s", sub.Name(), sub.Name())
			}
		}
	}
	return root
}

// checkGlobalFlags refuses global flags that cannot work, and any flag that holds a control character
// (which no name, ID or path holds, and which would break the output), before anything is sent.
func (a *app) checkGlobalFlags(cmd *cobra.Command, _ []string) error {
	if err := a.parseOutput(); err != nil {
		return err
	}
	if a.pollInterval != 0 && a.pollInterval < minPollInterval {
		return usagef("invalid --poll-interval %s: must be at least %s", a.pollInterval, minPollInterval)
	}
	if a.timeout < 0 {
		return usagef("invalid --timeout %s: must not be negative", a.timeout)
	}
	// The lowest rate, one request every 10 s, keeps a call's turn in the pacing well inside an
	// attempt's 30 s bound; NaN fails every comparison.
	if !(a.rate == 0 || a.rate >= minRate) {
		return usagef("invalid --rate %g: must be 0 (no pacing) or at least %g (one request every 10 s)", a.rate, minRate)
	}
	var bad error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if bad == nil && strings.ContainsFunc(f.Value.String(), unicode.IsControl) {
			bad = usagef("invalid --%s: it holds a control character (a newline, a tab, ...)", f.Name)
		}
	})
	return bad
}

// minPollInterval is the shortest --poll-interval.
const minPollInterval = 200 * time.Millisecond

// minRate is the lowest --rate but 0.
const minRate = 0.1

// group returns a command that only holds verbs: alone it prints its help, with an unknown verb it
// is a usage error.
func group(use, short, example string, aliases ...string) *cobra.Command {
	return &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Aliases: aliases,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
}

// runner wraps a command's own code: it marks the run as past the usage checks, bounds it by
// --timeout, and gives it the client.
func (a *app) runner(fn func(ctx context.Context, c *compute.Client, cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := a.checkOutput(cmd); err != nil {
			return err
		}
		a.running = true
		ctx := cmd.Context()
		if a.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, a.timeout)
			defer cancel()
		}
		c, err := a.connect(ctx)
		if err != nil {
			return err
		}
		return a.hints(cmd, redirected(flagError(cmd, led(cmd, args, a.creating.ended(fn(ctx, c, cmd, args))))))
	}
}

// led heads an error of the SDK with what failed in the command line's words, "instance delete
// ins-000001: ...", so that a message does not lead with an HTTP request. The command's own errors
// (usage, a name that finds none or several, a create whose wait failed) say it already.
func led(cmd *cobra.Command, args []string, err error) error {
	var u *usageError
	var none *noSuchError
	var several *ambiguousError
	var created *createdError
	var ve *compute.ValidationError
	if err == nil || errors.As(err, &u) || errors.As(err, &none) || errors.As(err, &several) || errors.As(err, &created) || errors.As(err, &ve) {
		return err
	}
	what := strings.Join(append([]string{strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")}, args...), " ")
	return fmt.Errorf("%s: %w", what, err)
}

// redirected explains a 3xx answer: the client follows redirects only within the API's origin.
func redirected(err error) error {
	var ae *compute.APIError
	if errors.As(err, &ae) && ae.StatusCode >= 300 && ae.StatusCode < 400 {
		return fmt.Errorf("%w (a redirect to another host, which compute does not follow: check --api-url or %s)", err, compute.EnvBaseURL)
	}
	return err
}

// note tells a person at a terminal what a command did when it prints no result; scripts see
// nothing.
func (a *app) note(format string, args ...any) {
	if a.stderrTTY {
		fmt.Fprintln(a.stderr, a.safe(fmt.Sprintf(format, args...)))
	}
}

// warn writes a warning to stderr, terminal or not.
func (a *app) warn(format string, args ...any) {
	fmt.Fprintln(a.stderr, "compute: warning: "+a.safe(fmt.Sprintf(format, args...)))
}
