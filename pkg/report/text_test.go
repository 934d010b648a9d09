package report

import (
	"reflect"
	"strings"
	"testing"
)

// MapText reaches every text of a report: a field added later without it
// would be written and served unredacted. Every string the report can
// hold is set, MapText marks them, and any not marked but an identifier
// the plugin compares fails the test.
func TestMapTextReachesEveryText(t *testing.T) {
	var r Report
	fill(reflect.ValueOf(&r).Elem())
	r.MapText(func(s string) string { return "mapped:" + s })
	identifiers := map[string]bool{
		"ConfidenceLevel": true, "Milestones": true, "Verdict": true, "Kind": true, "ID": true,
		"Hypotheses.Evidence": true, "RootCause.Evidence": true,
		"Evidence.Claims.Status": true, "OnBuiltin": true,
	}
	var check func(v reflect.Value, path, field string)
	check = func(v reflect.Value, path, field string) {
		switch v.Kind() {
		case reflect.String:
			if !strings.HasPrefix(v.String(), "mapped:") && !identifiers[field] && !identifiers[path] {
				t.Errorf("MapText does not reach %s", path)
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				f := v.Type().Field(i)
				if !f.IsExported() {
					continue
				}
				p := f.Name
				if path != "" {
					p = strings.TrimPrefix(path+"."+f.Name, ".")
				}
				check(v.Field(i), p, f.Name)
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				check(v.Index(i), path, field)
			}
		}
	}
	check(reflect.ValueOf(r), "", "")
}

// fill sets every string reachable from v, with one element per slice.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("text")
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	}
}
