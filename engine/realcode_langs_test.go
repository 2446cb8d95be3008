package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn/engine"
)

// Hand-checked answers on Ruby (rack), PHP (monolog) and C# (edge-js).

func init() {
	realViews = append(realViews,
		realView{Name: "rack-response", Corpus: "rack", Paths: []string{"lib/rack/response.rb"}},
		realView{Name: "monolog-handlers", Corpus: "monolog", Paths: []string{"Logger.php", "ResettableInterface.php",
			"Handler/HandlerInterface.php", "Handler/Handler.php", "Handler/AbstractHandler.php",
			"Handler/AbstractProcessingHandler.php", "Handler/StreamHandler.php", "Handler/NullHandler.php"}},
		realView{Name: "edge-semver", Corpus: "edgejs", Paths: []string{"double/Edge.js/dotnetcore/semversion.cs"}},
	)
	realCases = append(realCases,
		// Ruby: rack 2.2.22, lib/rack/response.rb.
		realCase{Name: "definitions/Ruby Response.redirect", View: "rack-response", Check: func(t *testing.T, s *engine.Snapshot) {
			// response.rb:68 def redirect(target, status = 302)
			wantDefinitions(t, s, "Response.redirect", "lib/rack/response.rb:68")
		}},
		realCase{Name: "writes/Ruby Response.status through @ivar and self.x =", View: "rack-response", Check: func(t *testing.T, s *engine.Snapshot) {
			// :26 attr_accessor :length, :status, :body; written at :43
			// @status = status.to_i (initialize) and :69 self.status = status
			// (redirect). :308 @status = status is Response::Raw's own
			// attr_accessor :status (:305), not Response's.
			got := refSites(t, s, engine.ReferencesOptions{Name: "Response.status", Roles: "write"})
			sameSet(t, "refs --role write Response.status", got, []string{"lib/rack/response.rb:43:7 write", "lib/rack/response.rb:69:12 write"})
		}},
		realCase{Name: "implementations/Ruby mixin Response::Helpers", View: "rack-response", Check: func(t *testing.T, s *engine.Snapshot) {
			// :134 module Helpers; :299 include Helpers in class Response (:18),
			// :302 include Helpers in class Raw (:301).
			res, err := s.Implementations(context.Background(), engine.HopsOptions{Name: "Helpers", Depth: 1})
			sameSet(t, "implementations Helpers", hops(t, res, err), []string{
				"Rack.Response lib/rack/response.rb:18", "Rack.Response.Raw lib/rack/response.rb:301"})
		}},
		realCase{Name: "calls/Ruby bare method call buffered_body!", View: "rack-response", Check: func(t *testing.T, s *engine.Snapshot) {
			// :263 def buffered_body! (in Helpers); its one call is the bare
			// buffered_body! at :113 in Response#write (:112).
			res, err := s.Callers(context.Background(), engine.HopsOptions{Name: "Helpers.buffered_body!", Depth: 1})
			sameSet(t, "callers buffered_body!", hops(t, res, err), []string{"Rack.Response.write lib/rack/response.rb:112"})
		}},
		// PHP: monolog 2.9.1, Logger.php and Handler/.
		realCase{Name: "definitions/PHP Logger.toMonologLevel", View: "monolog-handlers", Check: func(t *testing.T, s *engine.Snapshot) {
			// Logger.php:500 public static function toMonologLevel($level): int
			wantDefinitions(t, s, "Logger.toMonologLevel", "Logger.php:500")
		}},
		realCase{Name: "calls/PHP static Logger::toMonologLevel", View: "monolog-handlers", Check: func(t *testing.T, s *engine.Snapshot) {
			// grep "toMonologLevel(" over the view: AbstractHandler.php:64 in
			// setLevel (:62), NullHandler.php:42 in __construct (:40),
			// Logger.php:583 static::toMonologLevel in log (:573).
			res, err := s.Callers(context.Background(), engine.HopsOptions{Name: "Logger.toMonologLevel", Depth: 1})
			sameSet(t, "callers toMonologLevel", hops(t, res, err), []string{"AbstractHandler.setLevel Handler/AbstractHandler.php:62",
				"NullHandler.__construct Handler/NullHandler.php:40", "Logger.log Logger.php:573"})
		}},
		realCase{Name: "writes/PHP AbstractHandler.level through $this->", View: "monolog-handlers", Check: func(t *testing.T, s *engine.Snapshot) {
			// AbstractHandler.php:32 protected $level; :64 $this->level = … is
			// the one write; :53 and :78 read it. NullHandler.php:42 writes
			// NullHandler's own private $level (NullHandler extends Handler).
			got := refSites(t, s, engine.ReferencesOptions{Name: "AbstractHandler.level"})
			sameSet(t, "refs AbstractHandler.level", got, []string{"Handler/AbstractHandler.php:53:43 read",
				"Handler/AbstractHandler.php:64:16 write", "Handler/AbstractHandler.php:78:23 read"})
		}},
		realCase{Name: "implementations/PHP HandlerInterface and Handler", View: "monolog-handlers", Check: func(t *testing.T, s *engine.Snapshot) {
			// Handler.php:19 abstract class Handler implements HandlerInterface;
			// AbstractHandler.php:26 and NullHandler.php:28 extend Handler.
			res, err := s.Implementations(context.Background(), engine.HopsOptions{Name: "HandlerInterface", Depth: 1})
			sameSet(t, "implementations HandlerInterface", hops(t, res, err), []string{"Handler Handler/Handler.php:19"})
			res, err = s.Implementations(context.Background(), engine.HopsOptions{Name: "Handler", Depth: 1})
			sameSet(t, "implementations Handler", hops(t, res, err), []string{"AbstractHandler Handler/AbstractHandler.php:26",
				"NullHandler Handler/NullHandler.php:28"})
		}},
		// C#: edge-js 26.1.0, src/double/Edge.js/dotnetcore/semversion.cs.
		realCase{Name: "definitions/C# SemVersion.CompareComponent", View: "edge-semver", Check: func(t *testing.T, s *engine.Snapshot) {
			// :286 static int CompareComponent(string a, string b, bool lower = false)
			wantDefinitions(t, s, "SemVersion.CompareComponent", "double/Edge.js/dotnetcore/semversion.cs:286")
		}},
		realCase{Name: "calls/C# implicit-this CompareComponent", View: "edge-semver", Check: func(t *testing.T, s *engine.Snapshot) {
			// called bare at :243 in CompareTo(SemVersion other) (:234) and
			// :282 in CompareByPrecedence (:268). The two CompareTo overloads
			// (:216, :234) share one symbol, shown at the first (overloads
			// are not told apart).
			res, err := s.Callers(context.Background(), engine.HopsOptions{Name: "SemVersion.CompareComponent", Depth: 1})
			sameSet(t, "callers CompareComponent", hops(t, res, err), []string{
				"SemVersion.CompareTo double/Edge.js/dotnetcore/semversion.cs:216",
				"SemVersion.CompareByPrecedence double/Edge.js/dotnetcore/semversion.cs:268"})
		}},
		realCase{Name: "writes/C# property SemVersion.Major", View: "edge-semver", Check: func(t *testing.T, s *engine.Snapshot) {
			// :153 public int Major { get; private set; }; the one write is
			// :33 this.Major = major in the constructor.
			got := refSites(t, s, engine.ReferencesOptions{Name: "SemVersion.Major", Roles: "write"})
			sameSet(t, "refs --role write SemVersion.Major", got, []string{"double/Edge.js/dotnetcore/semversion.cs:33:18 write"})
		}},
	)
}

func hops(t *testing.T, res *engine.HopsResult, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Results {
		if h.Definition == nil {
			got = append(got, h.Name+" (outside)")
			continue
		}
		got = append(got, fmt.Sprintf("%s %s:%d", h.Name, h.Definition.Path, h.Definition.StartLine))
	}
	return got
}
