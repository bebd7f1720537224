// Package provider is the Terraform provider "compute": its configuration, the one client it
// shares with every resource and data source, and the list of both.
package provider

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"time"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/compute-sdk/compute-go/terraform-provider-compute/internal/kit"
)

// TypeName is the provider's type name: its resources are compute_instance, compute_volume, ...
const TypeName = "compute"

// EnvRedisURL names the environment variable that redis_url defaults to.
const EnvRedisURL = "COMPUTE_REDIS_URL"

// New returns the provider's constructor; version is the release it is built from ("dev" for a
// local build, "test" in tests).
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &computeProvider{version: version} }
}

type computeProvider struct {
	version string
}

// model is the provider block.
type model struct {
	Endpoint        types.String  `tfsdk:"endpoint"`
	Token           types.String  `tfsdk:"token"`
	PollingInterval types.String  `tfsdk:"polling_interval"`
	Rate            types.Float64 `tfsdk:"rate"`
	RedisURL        types.String  `tfsdk:"redis_url"`
	AdoptExisting   types.Bool    `tfsdk:"adopt_existing"`
}

func (p *computeProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = TypeName
	resp.Version = p.version
}

func (p *computeProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The compute provider manages the resources of the Compute Resource Management API " +
			"(instances, volumes, filesystems, snapshots, SSH keys, security groups and floating IPs) through the " +
			"compute-go SDK. Every resource and data source of one provider block shares one client: its calls are " +
			"paced at the account's rate, creates are made once even when a response is lost, and the reads of one " +
			"refresh share the walks of the lists.",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{
				MarkdownDescription: "The API's base URL, such as `https://api.example.com`. Defaults to the `" + compute.EnvBaseURL + "` environment variable; one of them is required. Plain `http` is accepted for a loopback address only.",
				Optional:            true,
			},
			"token": schema.StringAttribute{
				MarkdownDescription: "The API token. Defaults to the `" + compute.EnvToken + "` environment variable; one of them is required. It is sent to the endpoint's host only and never shows in a diagnostic or a log.",
				Optional:            true,
				Sensitive:           true,
			},
			"polling_interval": schema.StringAttribute{
				MarkdownDescription: "The first wait between two reads while a create, an update or a delete waits for the resource to settle, as a duration (`2s`). The reads stay that far apart while nothing else the provider sends waits for the rate; while other requests need it, later waits grow from it to at most 15 seconds (or to it, if it is longer). Waits of one kind that run at once share one walk of the list instead.",
				Optional:            true,
			},
			"rate": schema.Float64Attribute{
				MarkdownDescription: fmt.Sprintf("The requests per second the provider sends at most, all resources together; the service allows %d. `Retry-After` is honoured on a 429 whatever the rate. Give each of several processes on one token a part of it, or share it through `redis_url`.", compute.DefaultRateLimit),
				Optional:            true,
			},
			"redis_url": schema.StringAttribute{
				MarkdownDescription: "A Redis URL (`redis://host:6379/0`) through which every process on the token, this provider's runs and any other program, shares one budget of `rate` requests a second, so that concurrent applies of separate stacks do not starve each other into 429 errors. Defaults to the `" + EnvRedisURL + "` environment variable. When Redis is unreachable, each process paces itself alone and says so in the log.",
				Optional:            true,
				Sensitive:           true,
			},
			"adopt_existing": schema.BoolAttribute{
				MarkdownDescription: "When `true`, a create also adopts a resource that already has the configured name and matches the configuration (its region, its type, ...) instead of making a second one, so that applying again after an apply was killed halfway finishes the job. Names are then the identity of what the configuration manages: a colleague's resource with the same name would be adopted, and destroyed with the stack. Off by default: a create then adopts only what it made itself after a lost response.",
				Optional:            true,
			},
		},
	}
}

func (p *computeProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var data model
	resp.Diagnostics.Append(req.Config.Get(ctx, &data)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for name, v := range map[string]interface{ IsUnknown() bool }{
		"endpoint": data.Endpoint, "token": data.Token, "polling_interval": data.PollingInterval,
		"rate": data.Rate, "redis_url": data.RedisURL, "adopt_existing": data.AdoptExisting,
	} {
		if v.IsUnknown() {
			resp.Diagnostics.AddAttributeError(path.Root(name), "Unknown provider setting",
				"The provider's "+name+" depends on a value known only after apply. Give it a value known at plan time, or set it in the environment.")
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	endpoint := orEnv(data.Endpoint, compute.EnvBaseURL)
	token := orEnv(data.Token, compute.EnvToken)
	redisURL := orEnv(data.RedisURL, EnvRedisURL)
	if endpoint == "" {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "Missing endpoint",
			"Set endpoint in the provider block or the "+compute.EnvBaseURL+" environment variable to the API's base URL.")
	}
	if token == "" {
		resp.Diagnostics.AddAttributeError(path.Root("token"), "Missing token",
			"Set token in the provider block or the "+compute.EnvToken+" environment variable.")
	}
	rate := float64(compute.DefaultRateLimit)
	if !data.Rate.IsNull() {
		rate = data.Rate.ValueFloat64()
		if !(rate > 0) || rate > 1e6 {
			resp.Diagnostics.AddAttributeError(path.Root("rate"), "Invalid rate", fmt.Sprintf("rate must be a number of requests per second above 0, got %v.", rate))
		}
	}
	var wait []compute.WaitOption
	if !data.PollingInterval.IsNull() {
		d, err := time.ParseDuration(data.PollingInterval.ValueString())
		switch {
		case err != nil:
			resp.Diagnostics.AddAttributeError(path.Root("polling_interval"), "Invalid polling interval", "polling_interval must be a duration such as 2s: "+kit.Safe(err.Error()))
		case d <= 0:
			resp.Diagnostics.AddAttributeError(path.Root("polling_interval"), "Invalid polling interval", "polling_interval must be positive, got "+d.String()+".")
		default:
			wait = append(wait, compute.WithPollInterval(d, max(d, compute.DefaultPollMax)))
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}

	opts := []compute.Option{
		compute.WithBaseURL(endpoint),
		compute.WithUserAgent(fmt.Sprintf("terraform-provider-compute/%s terraform/%s", p.version, req.TerraformVersion)),
		compute.WithLogger(kit.Logger()),
	}
	if kit.DebugLogging() {
		opts = append(opts, compute.WithDebugDump(kit.DumpWriter{Ctx: ctx}))
	}
	if redisURL != "" {
		lim, err := sharedLimiter(ctx, redisURL, token, rate)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("redis_url"), "Invalid redis_url", kit.Safe(err.Error()))
			return
		}
		opts = append(opts, compute.WithLimiter(lim))
	} else {
		// Terraform starts the provider anew for each plan and each apply, on a machine that its
		// own graph walk keeps busy: paced from responses from the first request, not from the
		// first 429, a request the service reads late draws no 429 in any of them.
		lim, err := compute.NewLimiter(rate, compute.DefaultRateBurst, compute.PaceFromResponses())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("rate"), "Invalid rate", kit.Safe(err.Error()))
			return
		}
		opts = append(opts, compute.WithLimiter(lim))
	}
	c, err := compute.NewClient(token, opts...)
	if err != nil {
		resp.Diagnostics.AddError("Cannot make the API client", kit.Safe(err.Error()))
		return
	}
	meta := kit.NewMeta(c, data.AdoptExisting.ValueBool(), wait)
	resp.ResourceData = meta
	resp.DataSourceData = meta
}

// orEnv is v's value, or the environment variable env when v is not set.
func orEnv(v types.String, env string) string {
	if !v.IsNull() {
		return v.ValueString()
	}
	return os.Getenv(env)
}

// limiters keeps one Redis limiter per URL, token and rate for the life of the process, which
// configures the provider once per plan or apply (and many times in tests), until Close.
var limiters struct {
	sync.Mutex
	m map[string]sharedRedis
}

// sharedRedis is a Redis limiter and the Redis client it uses.
type sharedRedis struct {
	lim *ratelimit.Limiter
	rdb *goredis.Client
}

// Close closes the Redis limiters the process made and their Redis clients: each leaves the
// token's budget at once, so that the other processes on the token take its share instead of
// keeping its slots clear for a few seconds after it exits. main calls it once Terraform has
// stopped the provider; a configuration after it makes new ones. Each leave is bounded by the
// limiter's Redis timeout; the error reports those that failed.
func Close() error {
	limiters.Lock()
	defer limiters.Unlock()
	var errs []error
	for _, s := range limiters.m {
		errs = append(errs, s.lim.Close(), s.rdb.Close())
	}
	limiters.m = nil
	return errors.Join(errs...)
}

// sharedLimiter returns the limiter of package ratelimit/redis on the Redis rawURL names, paced
// from responses from the first request, as the limiter of a provider without Redis is.
func sharedLimiter(ctx context.Context, rawURL, token string, rate float64) (compute.Limiter, error) {
	key := fmt.Sprintf("%s\x00%s\x00%v", rawURL, token, rate)
	limiters.Lock()
	defer limiters.Unlock()
	if s, ok := limiters.m[key]; ok {
		return s.lim, nil
	}
	opt, err := goredis.ParseURL(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // a *url.Error quotes the URL, which may hold Redis's password
		}
		return nil, err
	}
	quietOnce.Do(func() { goredis.SetLogger(quietRedis{}) })
	rdb := goredis.NewClient(opt)
	lim, err := ratelimit.New(rdb, token, ratelimit.WithRate(rate), ratelimit.WithTimeout(redisTimeout),
		ratelimit.WithErrorHandler(redisTrouble(ctx)), ratelimit.WithResponsePacing())
	if err != nil {
		_ = rdb.Close()
		return nil, err
	}
	if limiters.m == nil {
		limiters.m = map[string]sharedRedis{}
	}
	limiters.m[key] = sharedRedis{lim: lim, rdb: rdb}
	return lim, nil
}

// redisTimeout bounds each command to the shared limiter's Redis. It is longer than the limiter's
// default: a Terraform run shares its machine with the other stacks' terraform processes, which
// starve it for tenths of a second as they plan, and a Redis answer that comes late then is no
// outage; taking it for one would pace this process alone, out of step with the others.
const redisTimeout = 500 * time.Millisecond

// redisTrouble returns the handler that logs the shared limiter falling back to pacing this
// process alone, and its return, to the log of ctx.
func redisTrouble(ctx context.Context) func(error) {
	return func(err error) {
		if err != nil {
			tflog.Warn(ctx, "the rate limit shared through Redis is unavailable, pacing this process alone: "+kit.Safe(err.Error()))
			return
		}
		tflog.Warn(ctx, "the rate limit shared through Redis is available again")
	}
}

// quietOnce sets the Redis client's logger once: the logger is global, and setting it again races
// with a dial of a client made before.
var quietOnce sync.Once

// quietRedis silences the Redis client's own log lines; the provider says once that the shared
// limit is unavailable.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

func (p *computeProvider) Resources(context.Context) []func() resource.Resource {
	return resources
}

func (p *computeProvider) DataSources(context.Context) []func() datasource.DataSource {
	return dataSources
}
