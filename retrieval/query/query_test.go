package query

import (
	"slices"
	"testing"
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
