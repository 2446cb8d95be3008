package web

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	tok := strings.Repeat("k", MinTokenLen)
	for _, c := range []struct {
		addr   string
		remote bool
		token  string
		ok     bool
	}{
		{"127.0.0.1:7777", false, "", true},
		{"localhost:0", false, "", true},
		{"[::1]:7777", false, "", true},
		{"127.0.0.1:7777", false, "short", false},
		{"0.0.0.0:7777", false, "", false},
		{":7777", false, "", false},
		{"0.0.0.0:7777", true, "", false},
		{"0.0.0.0:7777", false, tok, false},
		{"0.0.0.0:7777", true, tok, true},
		{"192.168.1.5:7777", true, "short", false},
		{"example.com:7777", false, "", false},
		{"nonsense", false, "", false},
	} {
		err := CheckAddr(c.addr, c.remote, c.token)
		if (err == nil) != c.ok {
			t.Errorf("CheckAddr(%q, remote %v, token %q) = %v, want ok %v", c.addr, c.remote, c.token, err, c.ok)
		}
	}
}

// TestNonLoopbackNeedsToken: New refuses to make a server that would
// listen beyond loopback without a token.
func TestNonLoopbackNeedsToken(t *testing.T) {
	root, _ := fixtureRepo(t)
	_ = root
	s, _ := newServer(t, Options{})
	if _, err := New(Options{Engine: s.eng, Addr: "0.0.0.0:0", Remote: true}); err == nil {
		t.Error("a server on 0.0.0.0 without a token was made")
	}
	if _, err := New(Options{Engine: s.eng, Addr: "0.0.0.0:0"}); err == nil {
		t.Error("a server on 0.0.0.0 without --remote was made")
	}
}

func TestForeignHostAndOrigin(t *testing.T) {
	_, hs := newServer(t, Options{})
	u := hs.URL
	host := strings.TrimPrefix(u, "http://")
	for _, c := range []struct {
		name   string
		path   string
		header []string
		code   int
	}{
		{"own host", "/", nil, 200},
		{"localhost", "/", []string{"Host", "localhost:1234"}, 200},
		{"rebound name", "/", []string{"Host", "attacker.example:80"}, http.StatusMisdirectedRequest},
		{"rebound name, API", "/api/index_status", []string{"Host", "attacker.example"}, http.StatusMisdirectedRequest},
		{"foreign origin", "/api/index_status", []string{"Origin", "http://attacker.example"}, 403},
		{"foreign origin, page", "/search?q=x", []string{"Origin", "https://evil.test"}, 403},
		{"null origin", "/api/index_status", []string{"Origin", "null"}, 403},
		{"same origin", "/api/index_status", []string{"Origin", "http://" + host}, 200},
		{"cross-site fetch", "/", []string{"Sec-Fetch-Site", "cross-site"}, 403},
	} {
		code, body := get(t, u+c.path, c.header...)
		if code != c.code {
			t.Errorf("%s: %d %s, want %d", c.name, code, body, c.code)
		}
		if c.code != 200 && category(t, body) != "refused" {
			t.Errorf("%s: not refused: %s", c.name, body)
		}
	}
	for _, m := range []string{"PUT", "DELETE", "PATCH"} {
		req, _ := http.NewRequest(m, u+"/api/index_status", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}
	resp, err := http.Post(u+"/search", "application/x-www-form-urlencoded", strings.NewReader("q=x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST to a page: %d, want 405", resp.StatusCode)
	}
}

func TestToken(t *testing.T) {
	tok := "0123456789abcdef0123"
	_, hs := newServer(t, Options{Token: tok})
	if code, body := get(t, hs.URL+"/api/index_status"); code != 401 || category(t, body) != "refused" {
		t.Errorf("no token: %d %s", code, body)
	}
	if code, _ := get(t, hs.URL+"/", "Authorization", "Bearer wrong-token-wrong-token"); code != 401 {
		t.Errorf("wrong token: %d", code)
	}
	if code, _ := get(t, hs.URL+"/api/index_status", "Authorization", "Bearer "+tok); code != 200 {
		t.Errorf("bearer token: %d", code)
	}
	// ?token= sets the cookie and drops the token from the address
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(hs.URL + "/search?q=artifact&token=" + tok)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || strings.Contains(loc, "token") || !strings.Contains(loc, "q=artifact") {
		t.Fatalf("?token=: %d to %q", resp.StatusCode, loc)
	}
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == tokenCookie {
			cookie = ck
		}
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v", cookie)
	}
	req, _ := http.NewRequest("GET", hs.URL+loc, nil)
	req.AddCookie(cookie)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with the cookie: %d", resp.StatusCode)
	}
}

// TestOutsideRepository: neither /source nor the API reads a file
// outside the repository, by a relative path, an absolute one or a link.
func TestOutsideRepository(t *testing.T) {
	root, _ := fixtureRepo(t)
	_, hs := newServer(t, Options{})
	secret := filepath.Join(filepath.Dir(root), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "server", "leak.go")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(link)
	for _, p := range []string{"../secret.txt", secret, "/etc/passwd", "server/../../secret.txt", "server/leak.go"} {
		for _, u := range []string{"/source?path=", "/api/read_span?path="} {
			code, body := get(t, hs.URL+u+p)
			if code == 200 || strings.Contains(string(body), "TOP SECRET") || strings.Contains(string(body), "root:") {
				t.Errorf("%s%s: %d, read outside the repository", u, p, code)
			}
			if u == "/api/read_span?path=" && p != "server/leak.go" && category(t, body) != "outside_repository" {
				t.Errorf("%s%s: category %s", u, p, category(t, body))
			}
		}
	}
	// every argument that names a path is checked by the engine
	for _, u := range []string{
		"/api/repo_map?under=../",
		"/api/definition?symbol=ToResponse&path=/etc",
		"/api/references?symbol=ToResponse&path=../secret.txt",
		"/api/build_context?task=x&focus=../secret.txt",
		"/api/impact?symbol=ToResponse&path=/etc",
		"/api/entry_points?under=../",
		"/api/package_graph?under=/etc",
	} {
		code, body := get(t, hs.URL+u)
		if code != 403 || category(t, body) != "outside_repository" {
			t.Errorf("%s: %d %s, want 403 outside_repository", u, code, body)
		}
	}
	// and the pages that take a directory
	for _, u := range []string{"/?under=../", "/?under=/etc"} {
		code, body := get(t, hs.URL+u)
		if code != 403 || !strings.Contains(string(body), `data-category="outside_repository"`) {
			t.Errorf("%s: %d, want 403 outside_repository", u, code)
		}
	}
}

// TestPanicIsTheRequests: a handler that panics answers 500 with an
// internal error and is counted; the server goes on.
func TestPanicIsTheRequests(t *testing.T) {
	s, hs := newServer(t, Options{})
	s.mux.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	if code, body := get(t, hs.URL+"/boom"); code != 500 || category(t, body) != "internal" {
		t.Errorf("/boom: %d %s", code, body)
	}
	if s.Panics() != 1 {
		t.Errorf("%d panics counted", s.Panics())
	}
	if code, _ := get(t, hs.URL+"/api/index_status"); code != 200 {
		t.Errorf("after a panic: %d", code)
	}
}
