package impact_test

import (
	"context"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/impact"
)

// TestRubyPHPCSharpSelectors: the tests that reach a changed method run
// by their runner's selector — rspec FILE:LINE, minitest -n NAME, phpunit
// --filter, dotnet test --filter FullyQualifiedName~.
func TestRubyPHPCSharpSelectors(t *testing.T) {
	_, s := build(t, map[string]string{
		"rb/Gemfile":                 "source 'https://rubygems.org'\n",
		"rb/lib/bank.rb":             "class Bank\n  def total\n    1\n  end\nend\n",
		"rb/spec/bank_spec.rb":       "describe Bank do\n  it \"totals\" do\n    Bank.new.total\n  end\nend\n",
		"rb/test/test_bank.rb":       "class BankTest < Minitest::Test\n  def test_total\n    Bank.new.total\n  end\nend\n",
		"php/src/Till.php":           "<?php\nnamespace Shop;\n\nclass Till\n{\n    public function sum() { return 1; }\n}\n",
		"php/tests/TillTest.php":     "<?php\nnamespace Shop\\Tests;\n\nuse Shop\\Till;\n\nclass TillTest extends TestCase\n{\n    public function testSum(): void\n    {\n        (new Till())->sum();\n    }\n}\n",
		"cs/Shop/Cart.cs":            "namespace Shop\n{\n    public class Cart\n    {\n        public int Count() { return 1; }\n    }\n}\n",
		"cs/Shop.Tests/CartTests.cs": "using Shop;\n\nnamespace Shop.Tests\n{\n    public class CartTests\n    {\n        [Fact]\n        public void Counts()\n        {\n            new Cart().Count();\n        }\n    }\n}\n",
	})
	for _, c := range []struct {
		target, sel, cmd string
	}{
		{"Bank.total", "spec/bank_spec.rb:2", "cd rb && bundle exec rspec spec/bank_spec.rb:2"},
		{"Bank.total", "test/test_bank.rb -n test_total", "cd rb && ruby -Itest test/test_bank.rb -n '/^(test_total)$/'"},
		{"Till.sum", "TillTest::testSum", "vendor/bin/phpunit --filter '/::(testSum)$/' php/tests/TillTest.php"},
		{"Cart.Count", "Shop.Tests.CartTests.Counts", "dotnet test --filter 'FullyQualifiedName~Shop.Tests.CartTests.Counts'"},
	} {
		res, err := impact.ForTarget(context.Background(), s, c.target, impact.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sels := names(res.Tests, func(x impact.Test) string { return x.Selector })
		if !slices.Contains(sels, c.sel) {
			t.Errorf("%s: selectors %q, want %q among them", c.target, sels, c.sel)
		}
		if !slices.Contains(res.Commands, c.cmd) {
			t.Errorf("%s: commands %q, want %q among them", c.target, res.Commands, c.cmd)
		}
	}
}
