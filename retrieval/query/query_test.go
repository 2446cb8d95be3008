package query

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func names(ids []Ident) []string {
	var out []string
	for _, i := range ids {
		out = append(out, i.Name)
	}
	return out
}

func TestPythonTraceback(t *testing.T) {
	p := Parse(`requests.get raises when the url has a fragment

Traceback (most recent call last):
  File "/usr/lib/python3/site-packages/requests/sessions.py", line 507, in request
    prep = self.prepare_request(req)
  File "/usr/lib/python3/site-packages/requests/models.py", line 300, in prepare_url
    raise InvalidURL(*e.args)
requests.exceptions.InvalidURL: Failed to parse: http://x#y

I think ` + "`PreparedRequest.prepare_url`" + ` should not split on '#'.`)
	if len(p.Frames) != 2 || p.Frames[1].Func != "prepare_url" || p.Frames[1].Line != 300 {
		t.Errorf("frames = %+v", p.Frames)
	}
	for _, want := range []string{"PreparedRequest.prepare_url", "prepare_url", "request", "requests.get", "InvalidURL", "prepare_request"} {
		if !slices.Contains(names(p.Identifiers), want) {
			t.Errorf("identifiers %v lack %s", names(p.Identifiers), want)
		}
	}
	if !slices.Contains(p.Paths, "/usr/lib/python3/site-packages/requests/models.py") {
		t.Errorf("paths = %v", p.Paths)
	}
	if len(p.Errors) == 0 || p.Errors[0] != "InvalidURL: Failed to parse: http://x#y" {
		t.Errorf("errors = %v", p.Errors)
	}
	// quoted code outweighs prose
	if p.Identifiers[0].Name != "PreparedRequest.prepare_url" && p.Identifiers[0].Name != "prepare_url" {
		t.Errorf("strongest identifier %v", p.Identifiers[0])
	}
}

func TestGoPanic(t *testing.T) {
	p := Parse(`panic: runtime error: invalid memory address or nil pointer dereference

goroutine 5513264 [running]:
google.golang.org/grpc.(*ccBalancerWrapper).handleResolvedAddrs(0x0, 0xc448770280)
	/opt/gopath/src/myapp/vendor/google.golang.org/grpc/balancer_conn_wrappers.go:182 +0x26
google.golang.org/grpc.(*ClientConn).handleServiceConfig(0xc43dc7ac00)
	/opt/gopath/src/myapp/vendor/google.golang.org/grpc/clientconn.go:1046 +0x299`)
	want := []string{"ccBalancerWrapper.handleResolvedAddrs", "ClientConn.handleServiceConfig"}
	for _, w := range want {
		if !slices.Contains(names(p.Identifiers), w) {
			t.Errorf("identifiers %v lack %s", names(p.Identifiers), w)
		}
	}
	if len(p.Frames) != 2 || p.Frames[0].Line != 182 {
		t.Errorf("frames = %+v", p.Frames)
	}
}

func TestProseIsNotCode(t *testing.T) {
	p := Parse("The server drops the field after a refresh, e.g. on reload. See version 1.2.3 and README.md.")
	if len(p.Identifiers) != 0 {
		t.Errorf("identifiers from prose: %v", names(p.Identifiers))
	}
	if !slices.Contains(p.Paths, "README.md") {
		t.Errorf("paths = %v", p.Paths)
	}
}

// TestCodeLinks: links into a code host's file views are read as a
// revision-and-path reference with the anchored lines, whatever the host;
// links to issues, commits and other pages are not; and the segments of a
// URL do not count as identifiers.
func TestCodeLinks(t *testing.T) {
	p := Parse(`caplog.get_records is frozen after caplog.clear()

It is [set to the same list](https://github.com/pytest-dev/pytest/blob/28e8c85/src/_pytest/logging.py#L699) as caplog.records,
see also https://github.com/pytest-dev/pytest/blob/main/src/_pytest/logging.py#L345-L350.
GitLab: https://gitlab.com/acme/tools/-/blob/release/1.2/pkg/run_job.go#L10-12 and
Bitbucket: <https://bitbucket.org/acme/web/src/abc123/app/views.py#lines-7>; no anchor:
https://github.com/acme/shop/blob/v2/billing/invoice.go
Not code: https://github.com/pytest-dev/pytest/issues/2844, https://github.com/grpc/grpc-go/commit/24638f5, https://docs.example.org/user_guide/index.html`)
	want := []Link{
		{Ref: "28e8c85/src/_pytest/logging.py", Line: 699},
		{Ref: "main/src/_pytest/logging.py", Line: 345, EndLine: 350},
		{Ref: "release/1.2/pkg/run_job.go", Line: 10, EndLine: 12},
		{Ref: "abc123/app/views.py", Line: 7},
		{Ref: "v2/billing/invoice.go"},
	}
	if !slices.Equal(p.Links, want) {
		t.Errorf("links\n got %+v\nwant %+v", p.Links, want)
	}
	ids := names(p.Identifiers)
	for _, noise := range []string{"_pytest", "run_job", "user_guide", "caplog.get_records"} {
		in := slices.Contains(ids, noise)
		if noise == "caplog.get_records" && !in {
			t.Errorf("the prose identifier %s is lost: %v", noise, ids)
		}
		if noise != "caplog.get_records" && in {
			t.Errorf("%s, a segment of a URL, taken for an identifier: %v", noise, ids)
		}
	}
}

// TestTitle: the first line of a text of several lines is its title, with
// a Markdown heading's marks dropped; a one-line query has none.
func TestTitle(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"caplog.clear breaks get_records\n\nDetails follow.", "caplog.clear breaks get_records"},
		{"\n\n## Rate limit DNS resolutions \nbody", "Rate limit DNS resolutions"},
		{"where is the invoice total rounded", ""},
		{"only a title\n\n  \n", ""},
		{strings.Repeat("x", 301) + "\nbody", ""},
		{"```python\nimport shop\n```\nit fails", ""},
		{"Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x", ""},
		{"goroutine 1 [running]:\nmain.main()", ""},
		{"TypeError: price_cart() got an unexpected keyword argument\n\nsince 2.0", "TypeError: price_cart() got an unexpected keyword argument"},
	} {
		if got := Parse(c.in).Title; got != c.want {
			t.Errorf("Title(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestPytestFailureLines: the lines pytest marks "E" give error messages —
// exceptions and assertion explanations — but not the assertion, the diff
// or lines too short to search; CRLF line ends are no part of a message.
func TestPytestFailureLines(t *testing.T) {
	p := Parse("bytes diff is confusing\r\n\r\n    def test_b():\r\n>       assert b\"\" == b\"42\"\r\n" +
		"E       AssertionError: assert b'' == b'42'\r\n" +
		"E         Right contains more items, first extra item: 52\r\n" +
		"E         Full diff:\r\nE         - b''\r\nE         + b'42'\r\nE         ?   ++\r\n" +
		"E       ValueError: Value not scalar compatible or convertible to an int\r\n")
	want := []string{"AssertionError: assert b'' == b'42'", "Right contains more items, first extra item: 52",
		"ValueError: Value not scalar compatible or convertible to an int"}
	if !slices.Equal(p.Errors, want) {
		t.Errorf("errors\n got %q\nwant %q", p.Errors, want)
	}
	if ids := names(p.Identifiers); !slices.Contains(ids, "ValueError") {
		t.Errorf("the exception's type is not an identifier: %v", ids)
	}
}

// TestIdentifierQuery: a query of one name, of any shape, is identifier
// search; the name is the first identifier. Prose, paths and several
// names are not.
func TestIdentifierQuery(t *testing.T) {
	for q, want := range map[string]string{
		"get": "get", "Clob": "Clob", " writeClob\n": "writeClob", "Server.Start": "Server.Start",
		"pkg::f()": "pkg::f", "_whenHasSize": "_whenHasSize",
		"where is get": "", "Server.Start fails": "", "a/b.go": "", "x = 1": "", "": "",
	} {
		p := Parse(q)
		if p.Identifier != want {
			t.Errorf("Parse(%q).Identifier = %q, want %q", q, p.Identifier, want)
		}
		if want != "" && (len(p.Identifiers) == 0 || p.Identifiers[0].Name != want) {
			t.Errorf("Parse(%q).Identifiers = %+v, want %s first", q, p.Identifiers, want)
		}
	}
}

// TestSignatureErrors: Python's TypeErrors of a call against a signature
// name the callable whose definition does not accept the call.
func TestSignatureErrors(t *testing.T) {
	for text, want := range map[string][]string{
		"Traceback (most recent call last):\n  File \"ui.py\", line 9, in get_writer\n    writer = Writer(**kw)\nTypeError: RST.__init__() got an unexpected keyword argument 'header_rows'\n": {"RST.__init__"},
		"it fails:\n\nTypeError: send() missing 1 required positional argument: 'request'\n":                                                                                                   {"send"},
		"TypeError: Session.merge_environment_settings() takes 5 positional arguments but 6 were given":                                                                                        {"Session.merge_environment_settings"},
		"TypeError: plot() got multiple values for argument 'x'":                                                                                                                               {"plot"},
		"TypeError: unsupported operand type(s) for +: 'int' and 'str'":                                                                                                                        nil,
		"TypeError: 'NoneType' object is not callable":                                                                                                                                         nil,
	} {
		p := Parse(text)
		if !slices.Equal(p.Callees, want) {
			t.Errorf("Parse(%q).Callees = %q, want %q", text, p.Callees, want)
		}
		for _, c := range want {
			i := slices.IndexFunc(p.Identifiers, func(id Ident) bool { return id.Name == c })
			if i < 0 || p.Identifiers[i].Weight < 3 {
				t.Errorf("%q: the callee %s is not a strong identifier: %+v", text, c, p.Identifiers)
			}
		}
	}
}

// TestQuotedLiterals: of the query's quoted spans, the code that is no
// name — flags, expressions, arguments — is looked for verbatim; names,
// paths, prose, commands and URLs are not.
func TestQuotedLiterals(t *testing.T) {
	got := literals([]string{
		"--collect-only", "-k", "-v", "follow_symlinks=False", "str(value)", `f"{value:.16G}"`,
		"collect_only", "Session.request", "pip list", "go version", "https://x.org/a=b", "--collect-only",
		"a\nb=c", "", "--",
	})
	want := []string{"--collect-only", "follow_symlinks=False", "str(value)", `f"{value:.16G}"`}
	if !slices.Equal(got, want) {
		t.Errorf("literals = %q, want %q", got, want)
	}
}

// A template's sections and instructions are not what the issue says; its
// code is, headings in a fence included, and a text of headings alone keeps
// them.
func TestScaffold(t *testing.T) {
	text := "Close panics\n<!-- Please answer these questions\nbefore submitting. -->\n### What version of gRPC are you using?\n1.15.0\n\n**Describe the bug**\nClose panics when the resolver updates.\n```python\n## a heading-shaped comment in code\nx = 1\n```\n# a level-1 line stays\n"
	body := Parse(text).Body
	for _, gone := range []string{"Please answer", "before submitting", "What version", "Describe the bug"} {
		if strings.Contains(body, gone) {
			t.Errorf("body keeps %q:\n%s", gone, body)
		}
	}
	for _, kept := range []string{"Close panics\n", "1.15.0", "Close panics when the resolver updates.", "## a heading-shaped comment in code", "x = 1", "# a level-1 line stays"} {
		if !strings.Contains(body, kept) {
			t.Errorf("body lost %q:\n%s", kept, body)
		}
	}
	if got := Parse("### Steps to reproduce\n").Body; got != "### Steps to reproduce\n" {
		t.Errorf("headings alone: %q", got)
	}
	if got := Parse("### a heading of more than twelve words is somebody's own sentence and not a template's section\n").Body; !strings.Contains(got, "sentence") {
		t.Errorf("long heading dropped: %q", got)
	}
}

func TestChanges(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Change
	}{
		{"Consider export withContextDialer and deprecate WithDialer\nThere is no way", []Change{{"withContextDialer", true}, {"WithDialer", false}}},
		{"Rename IndexBuilder -> ShardBuilder (#908)", []Change{{"IndexBuilder", false}}},
		{"reverseproxy: Remove deprecated `lookup_srv`", []Change{{"lookup_srv", false}}},
		{"Deprecate `IERS.time_now`", []Change{{"IERS.time_now", false}}},
		{"dialOption: export WithContextDialer()", []Change{{"WithContextDialer", true}}},
		{"Export the method ToSnake and SnakeToUpperCamel", []Change{{"ToSnake", true}}},
		// prose after the verb, a keyword, and code in a fence are not asks
		{"rename postgres\nstream: export Client", nil},
		{"Deprecate `self` in class-scoped fixtures", nil},
		{"a module:\n```js\nexport function parseURL() {}\n```\n", nil},
		{"the exported fooBar is wrong", nil},
	} {
		got := Parse(c.text).Changes
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: Changes %v, want %v", c.text, got, c.want)
		}
	}
}

func TestChangesPast(t *testing.T) {
	for text, want := range map[string]int{
		"Renamed Foo_bar to baz":                       1,
		"pkg: deprecated WithFoo in favour of WithBar": 1,
		"remove the deprecated `lookup_srv` option":    1,
		"fix deprecated reflect.PtrTo usage":           1,
		"replace the deprecated ioutil.ReadAll":        1,
		"It panics. Deprecated fooBar was removed":     1,
		"calling the deprecated fooBar panics":         0,
		"the renamed fooBar keeps the old doc":         0,
	} {
		if got := len(Parse(text).Changes); got != want {
			t.Errorf("%q: %d changes, want %d", text, got, want)
		}
	}
}

func TestRefs(t *testing.T) {
	for _, c := range []struct {
		text string
		want []Ref
	}{
		// a regression report naming its culprit, twice
		{"dns + round_robin not updating address list in v1.26\n\nPR #3165 is likely the culprit (see https://github.com/grpc/grpc-go/pull/3165).",
			[]Ref{{Number: 3165, Repo: "grpc/grpc-go"}, {Number: 3165}}},
		{"Broken since 24638f5984c55a53cf0f4e74551ed763896c7e59, fine at 1a2b3c4.", []Ref{{Hash: "24638f5984c55a53cf0f4e74551ed763896c7e59"}, {Hash: "1a2b3c4"}}},
		{"Duplicate of #7215; also gh-812 and issue 44.", []Ref{{Number: 7215}, {Number: 812}, {Number: 44}}},
		{"see https://gitlab.com/o/r/-/merge_requests/17 and https://github.com/o/r/commit/abcdef0123", []Ref{{Number: 17, Repo: "o/r"}, {Hash: "abcdef0123"}}},
		// another repository's, by link or cross-reference: its name kept
		{"moved from sunpy/ndcube#529; upstream https://github.com/Golang/go/issues/31044", []Ref{{Number: 31044, Repo: "golang/go"}, {Number: 529, Repo: "sunpy/ndcube"}}},
		// what names no change: a blob link's revision, a commented
		// number in code, a digest, an address, a word of hex letters,
		// a one-digit list item, a version
		{"https://github.com/grpc/grpc-go/blob/24638f5984c55a53cf0f4e74551ed763896c7e59/server.go#L10", nil},
		{"```\nx = f()  #12 items\n```", nil},
		{"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 at 0xc00012a000", nil},
		{"the decade-old facade, step #1, v1.26.0, 20231201", nil},
	} {
		if got := Parse(c.text).Refs; !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %v\nwant %v", c.text, got, c.want)
		}
	}
	// a text citing hundreds: the first sixteen
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "#%d ", 100+i)
	}
	if got := Parse(b.String()).Refs; len(got) != 16 || got[15].Number != 115 {
		t.Errorf("500 numbers: %d refs, the last %v", len(got), got[len(got)-1])
	}
}

// TestKeys: a flag or configuration key gives the code's spellings of its
// name as identifiers (Ident.Spelled); nothing else of the text changes.
func TestKeys(t *testing.T) {
	tests := []struct {
		text   string
		idents []string // spelled
	}{
		{"Fix ANSI color offsets when --keep-right is used", []string{"keepRight", "keep_right"}},
		{"server: honour --max-conn-idle and `max.conn.idle`", []string{"maxConnIdle", "max_conn_idle"}},
		{"MAX_CONN_IDLE is ignored", []string{"maxConnIdle", "max_conn_idle"}},
		{"use `--experimental-json-output`", []string{"experimentalJsonOutput", "experimental_json_output"}},
		{"Fix inconsistent preview window width with --border", nil},
		{"see https://example.com/a--b-c and x--y-z, -v, e.g. the list-border", nil},
	}
	for _, tt := range tests {
		p := Parse(tt.text)
		var spelled []string
		for _, id := range p.Identifiers {
			if id.Spelled {
				spelled = append(spelled, id.Name)
			}
		}
		if diff := cmp.Diff(tt.idents, spelled); diff != "" {
			t.Errorf("%q: spelled identifiers (-want +got):\n%s", tt.text, diff)
		}
		if len(p.Literals) > 0 && !strings.Contains(tt.text, "`--") {
			t.Errorf("%q: literals %q", tt.text, p.Literals)
		}
	}
}
