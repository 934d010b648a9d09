package target

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string
		wantErr string
	}{
		{[]string{"web-0"}, []string{"pods", "web-0"}, ""},
		{[]string{"pod/web-0"}, []string{"pod/web-0"}, ""},
		{[]string{"deploy/web"}, []string{"deploy/web"}, ""},
		{[]string{"deployments.apps/web"}, []string{"deployments.apps/web"}, ""},
		{[]string{"deployment", "web"}, []string{"deployment", "web"}, ""},
		{nil, nil, "you must name one resource"},
		{[]string{"pod/a", "pod/b"}, nil, "exactly one resource, got 2"},
		{[]string{"pod", "a", "b"}, nil, "exactly one resource, got 2"},
		{[]string{"pod/"}, nil, "is not a resource"},
		{[]string{"/web"}, nil, "is not a resource"},
		{[]string{"a/b/c"}, nil, "is not a resource"},
	}
	for _, tt := range tests {
		got, err := Normalize(tt.args)
		if tt.wantErr != "" {
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &ue) {
				t.Errorf("Normalize(%q) err = %v, want usage error with %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}
