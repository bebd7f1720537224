package kit

import (
	"context"
	"log/slog"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Logger returns the SDK's logger: its lines (one per attempt and per retry wait, never a header or
// a body) go to Terraform's log through the context of the call that made them.
func Logger() *slog.Logger { return slog.New(tflogHandler{}) }

type tflogHandler struct{ attrs []slog.Attr }

func (tflogHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h tflogHandler) Handle(ctx context.Context, r slog.Record) error {
	fields := make(map[string]any, r.NumAttrs()+len(h.attrs))
	for _, a := range h.attrs {
		fields[a.Key] = a.Value.String()
	}
	r.Attrs(func(a slog.Attr) bool {
		fields[a.Key] = a.Value.String()
		return true
	})
	switch {
	case r.Level >= slog.LevelError:
		tflog.Error(ctx, r.Message, fields)
	case r.Level >= slog.LevelWarn:
		tflog.Warn(ctx, r.Message, fields)
	case r.Level >= slog.LevelInfo:
		tflog.Info(ctx, r.Message, fields)
	default:
		tflog.Debug(ctx, r.Message, fields)
	}
	return nil
}

func (h tflogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return tflogHandler{attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

// WithGroup keeps the handler as it is: the SDK logs no groups.
func (h tflogHandler) WithGroup(string) slog.Handler { return h }
