package walk

import (
	"testing"

	"github.com/cairn-dev/cairn/graph"
)

// TestRubyPHPCSharpFiles: extensions and names, C#'s generated names
// skipped with a reason, and the test-file conventions of the three.
func TestRubyPHPCSharpFiles(t *testing.T) {
	for p, want := range map[string]graph.Language{
		"app/models/account.rb": graph.LangRuby, "lib/tasks/db.rake": graph.LangRuby, "Gemfile": graph.LangRuby,
		"Rakefile": graph.LangRuby, "src/Account.php": graph.LangPHP, "Bank/Account.cs": graph.LangCSharp,
	} {
		if got := LanguageOf(p); got != want {
			t.Errorf("LanguageOf(%s) = %s, want %s", p, got, want)
		}
		if !want.HasParser() || want.Tier() != graph.TierFirstClass {
			t.Errorf("%s: no parser", want)
		}
	}
	for _, p := range []string{"Forms/Main.Designer.cs", "obj/Debug/App.g.cs", "Views/MainWindow.g.i.cs"} {
		if r, why := ClassifyPath(p, 10, 1<<20); r != graph.SkipGenerated || why == "" {
			t.Errorf("ClassifyPath(%s) = %s %q, want generated with a reason", p, r, why)
		}
	}
	if r, _ := ClassifyPath("Bank/Account.cs", 10, 1<<20); r != graph.SkipNone {
		t.Errorf("Account.cs skipped: %s", r)
	}
	for p, want := range map[string]bool{
		"spec/models/account_spec.rb": true, "test/test_account.rb": true, "test/account_test.rb": true,
		"tests/AccountTest.php": true, "Bank.Tests/AccountTests.cs": true, "app/models/account.rb": false, "src/Account.php": false,
	} {
		if got := IsTest(p); got != want {
			t.Errorf("IsTest(%s) = %v, want %v", p, got, want)
		}
	}
}
