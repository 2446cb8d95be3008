package engine_test

import (
	"context"
	"testing"

	"github.com/cairn-dev/cairn/engine"
)

// Scala: the standard library of Scala 2.11.12, from Debian bookworm's
// source package scala (2.11.12-5; no binary package ships Scala sources,
// .ci/realcode.sh's debsrc kind unpacks the source package). The view is
// scala.util.control and the one class outside it that extends its
// ControlThrowable.
func init() {
	realViews = append(realViews,
		realView{Name: "scala-control", Corpus: "scala", Paths: []string{"util/control", "runtime/NonLocalReturnControl.scala"}},
	)
	realCases = append(realCases,
		realCase{Name: "definitions/Scala trait ControlThrowable", View: "scala-control", Check: func(t *testing.T, s *engine.Snapshot) {
			// util/control/ControlThrowable.scala:35
			// trait ControlThrowable extends Throwable with NoStackTrace
			wantDefinitions(t, s, "ControlThrowable", "util/control/ControlThrowable.scala:35")
		}},
		realCase{Name: "implementations/Scala ControlThrowable", View: "scala-control", Check: func(t *testing.T, s *engine.Snapshot) {
			// Breaks.scala:94 private class BreakControl extends ControlThrowable;
			// runtime/NonLocalReturnControl.scala:14 class
			// NonLocalReturnControl[@specialized T](…) extends ControlThrowable.
			// (grep "extends ControlThrowable" over the view: these two; the
			// library's third, TrieMap's RestartException, is not in it.)
			sameSet(t, "implementations ControlThrowable", directHops(t, s, "ControlThrowable"), []string{
				"BreakControl util/control/Breaks.scala:94",
				"NonLocalReturnControl runtime/NonLocalReturnControl.scala:14"})
		}},
		realCase{Name: "references/Scala BreakControl with roles", View: "scala-control", Check: func(t *testing.T, s *engine.Snapshot) {
			// Breaks.scala:29 private val breakException = new BreakControl
			// (a construction: call and type); :40 and :65 case ex:
			// BreakControl => (a type pattern).
			sameSet(t, "refs BreakControl", refSites(t, s, engine.ReferencesOptions{Name: "BreakControl"}), []string{
				"util/control/Breaks.scala:29:36 call+type",
				"util/control/Breaks.scala:40:16 type",
				"util/control/Breaks.scala:65:16 type"})
		}},
		realCase{Name: "calls/Scala mkThrowableCatcher", View: "scala-control", Check: func(t *testing.T, s *engine.Snapshot) {
			// Exception.scala:49 def mkThrowableCatcher[T](…); its calls
			// (grep): :148 nothingCatcher, :149 nonFatalCatcher, :150
			// allCatcher, each a val or def of object Exception.
			res, err := s.Callers(context.Background(), engine.HopsOptions{Name: "mkThrowableCatcher", Depth: 1})
			sameSet(t, "callers mkThrowableCatcher", hops(t, res, err), []string{
				"Exception.nothingCatcher util/control/Exception.scala:148",
				"Exception.nonFatalCatcher util/control/Exception.scala:149",
				"Exception.allCatcher util/control/Exception.scala:150"})
		}},
		realCase{Name: "reads/Scala Breaks.breakException", View: "scala-control", Check: func(t *testing.T, s *engine.Snapshot) {
			// Breaks.scala:29 private val breakException (the carrier); read
			// at :41 (breakable), :66 (tryBreakable's catchBreak), :77
			// (break). Written only by its initializer, which trace lists as
			// the carrier, not as a write.
			res, err := s.Trace(context.Background(), engine.TraceOptions{Target: "Breaks.breakException"})
			if err != nil {
				t.Fatal(err)
			}
			sameSet(t, "trace Breaks.breakException reads", siteLines(res.Reads), []string{
				"util/control/Breaks.scala:41", "util/control/Breaks.scala:66", "util/control/Breaks.scala:77"})
			sameSet(t, "trace Breaks.breakException writes", siteLines(res.Writes), nil)
		}},
	)
}
