package term

import (
	"log/slog"
	"reflect"
)

// CleanAttr is a slog.HandlerOptions.ReplaceAttr that passes every text of
// a log record through Clean: the message, string values (names of
// objects, fault types, reasons), errors, string lists and key names. A
// log line quotes the cluster; slog's JSON handler escapes control
// characters but writes bidi controls, zero-width and tag characters as
// they are, and a log viewer then shows a line that reads differently from
// what it says.
func CleanAttr(_ []string, a slog.Attr) slog.Attr {
	a.Key = Clean(a.Key)
	switch a.Value.Kind() {
	case slog.KindString:
		a.Value = cleanString(a.Value, a.Value.String())
	case slog.KindAny:
		switch v := a.Value.Any().(type) {
		case error:
			a.Value = cleanString(a.Value, v.Error())
		case []string:
			if dirty(v) {
				out := make([]string, len(v))
				for i, s := range v {
					out[i] = Clean(s)
				}
				a.Value = slog.AnyValue(out)
			}
		default:
			// Named string types (types.UID, a Status) are logged as
			// strings.
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
				a.Value = cleanString(a.Value, rv.String())
			}
		}
	}
	return a
}

// cleanString is v, or s cleaned when v's text s needs it.
func cleanString(v slog.Value, s string) slog.Value {
	if c := Clean(s); c != s {
		return slog.StringValue(c)
	}
	return v
}

func dirty(list []string) bool {
	for _, s := range list {
		if Clean(s) != s {
			return true
		}
	}
	return false
}
