package logs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// classConstants reads the package's source for its Class constants: the
// Go runtime cannot list a package's constants.
func classConstants(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{} // name -> value
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Class" {
					continue
				}
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: Class constant %s is not a string literal", name, n.Name)
					}
					v, _ := strconv.Unquote(lit.Value)
					if _, dup := consts[n.Name]; dup {
						t.Errorf("Class constant %s declared twice", n.Name)
					}
					consts[n.Name] = v
				}
			}
		}
	}
	return consts
}

// TestEveryClassHasOneDef: a class is one constant and one Def, registered
// once; nothing is defined for a class that has no constant.
func TestEveryClassHasOneDef(t *testing.T) {
	consts := classConstants(t)
	if len(consts) < 20 {
		t.Fatalf("found only %d Class constants: the source scan is broken", len(consts))
	}
	count := map[Class]int{}
	for _, d := range defs {
		count[d.Class]++
	}
	values := map[string]bool{}
	for name, v := range consts {
		// Categories ("CrashLoop/Exit1/DNS"), scenario goldens and stored
		// incidents carry the string: it is the constant's own name.
		if v != name {
			t.Errorf("Class constant %s renders as %q, want %q", name, v, name)
		}
		if values[v] {
			t.Errorf("two Class constants render as %q", v)
		}
		values[v] = true
		switch n := count[Class(v)]; n {
		case 1:
		case 0:
			t.Errorf("Class %s has no Def (orphan constant)", name)
		default:
			t.Errorf("Class %s has %d Defs, want one", name, n)
		}
	}
	for c := range count {
		if !values[string(c)] {
			t.Errorf("Def for %q, which is no Class constant", c)
		}
	}
}

// TestDefsAreSound: each Def can match what it claims, and nothing about
// the order of classification is left to chance.
func TestDefsAreSound(t *testing.T) {
	crash, declaredN := 0, 0
	owner := map[string]Class{}
	for _, d := range defs {
		if len(d.Patterns) == 0 {
			t.Errorf("%s: no rows", d.Class)
		}
		for i, p := range d.Patterns {
			if p.Explains == "" || p.Fix == "" || p.Priority <= 0 {
				t.Errorf("%s row %d: wording or priority missing", d.Class, i)
			}
			if p.re == nil && len(d.Signals) == 0 && d.Also == nil && !d.Crash && !d.Declared {
				t.Errorf("%s row %d: nothing can match it", d.Class, i)
			}
		}
		for _, s := range d.Signals {
			if o, taken := owner[string(s)]; taken {
				t.Errorf("signal %s puts a line in both %s and %s", s, o, d.Class)
			}
			owner[string(s)] = d.Class
		}
		if d.Crash {
			crash++
		}
		if d.Declared {
			declaredN++
		}
	}
	if crash != 1 || declaredN != 1 {
		t.Errorf("%d Crash and %d Declared classes, want one each", crash, declaredN)
	}
	// Rows of different classes at one priority are ordered by rank: equal
	// ranks would leave the winner to the class names' order.
	for i, a := range catalogue {
		for _, b := range catalogue[i+1:] {
			if a.Class != b.Class && a.Priority == b.Priority && a.def.Rank == b.def.Rank {
				t.Errorf("%s and %s both rank %d at priority %d: set Rank on one", a.Class, b.Class, a.def.Rank, a.Priority)
			}
		}
	}
}

// TestClassificationOrder pins the order classify tries the rows in: of
// the rows a line matches, the first wins, so a change here changes which
// class a line gets. Row n>0 of a class is written Class#n.
func TestClassificationOrder(t *testing.T) {
	want := []string{
		"BootstrapCheck 97", "BootstrapCheck#1 97", "BootstrapCheck#2 97", "BootstrapCheck#3 97", "BootstrapCheck#4 97",
		"ScriptLineEndings 96",
		"DataDirNotEmpty#1 96",
		"CommandNotFound 95", "ExecFormat 95", "MissingLibrary 95",
		"ForwardingLoop 94", "ShellSyntax 93",
		"DataSourceURL 92",
		"StoredState 91",
		"MissingEnv 90", "MissingEnv#1 90", "MissingEnv#2 90", "MissingEnv#3 90", "MissingEnv#4 90", "MissingEnv#5 90", "MissingEnv#6 90",
		"VersionMismatch 89", "VersionMismatch#1 89", "VersionMismatch#2 89", "VersionMismatch#3 89", "VersionMismatch#4 89", "VersionMismatch#5 89", "VersionMismatch#6 89", "VersionMismatch#7 89", "VersionMismatch#8 89",
		"Forbidden 88", "WatchLimit 88", "APIMismatch 88",
		"NoSpace 87",
		"NoServerCertificate 86", "NoServerCertificate#1 86",
		"DataDirNotEmpty 86", "MissingPlugin 86",
		"MissingFile 85",
		"MissingModule 84", "LockHeld 84", "TLS#1 84",
		"TLS 83",
		"Migration 82",
		"SQL 81", "AuthFailed 81", "AuthFailed#1 81", "AuthFailed#2 81", "AuthFailed#3 81", "AuthFailed#4 81", "AuthFailed#5 81", "AuthFailed#6 81", "AuthFailed#7 81",
		"ConnectionRefused 80", "DNS 80",
		"FileMode 79",
		"PrivilegedPort 78",
		"AddressFamily 77",
		"PermissionDenied 75", "AddressInUse 75",
		"InvalidConfig 72",
		"OutOfMemory 70",
		"Timeout 65",
		"Panic 60",
		"Segfault 55",
		"FatalError 20", "FatalError#1 20",
		"ErrorLine 10",
	}
	var got []string
	for _, p := range catalogue {
		row := 0
		for i := range p.def.Patterns {
			if &p.def.Patterns[i] == p {
				row = i
			}
		}
		name := string(p.Class)
		if row > 0 {
			name += fmt.Sprintf("#%d", row)
		}
		got = append(got, fmt.Sprintf("%s %d", name, p.Priority))
	}
	if !slices.Equal(got, want) {
		t.Errorf("classification order changed:\n got %q\nwant %q", got, want)
	}
}

// TestClassOfTies: lines that two classes of one priority match get the
// one ranked first, whatever the registration order.
func TestClassOfTies(t *testing.T) {
	tests := []struct {
		line string
		want Class
	}{
		// ConnectionRefused's words and the DNS signal.
		{"failed to connect to db.shop.svc: dial tcp: lookup db.shop.svc: no such host", ConnectionRefused},
		// PermissionDenied's words and the address-in-use signal.
		{"mkdir /var/run/app: permission denied (EADDRINUSE)", PermissionDenied},
		// SQL's words and the authentication signal.
		{`FATAL: password authentication failed; database "shop" does not exist`, SQL},
	}
	for _, tt := range tests {
		if p := classify(tt.line, false); p == nil || p.Class != tt.want {
			t.Errorf("%q: got %v, want %s", tt.line, p, tt.want)
		}
	}
}
