package trace_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/retrieval/trace"
)

// TestEntryPointsRubyPHPCSharp: Rails routes, Laravel routes, ASP.NET
// attributes and minimal-API registrations, and a C# Main are entry points.
func TestEntryPointsRubyPHPCSharp(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"config/routes.rb":                       "Rails.application.routes.draw do\n  get \"/accounts/:id\", to: \"accounts#show\"\nend\n",
		"app/controllers/accounts_controller.rb": "class AccountsController < ApplicationController\n  def show\n  end\n\n  def helper\n  end\nend\n",
		"routes/web.php":                         "<?php\nuse App\\Http\\TellerController;\nRoute::get('/teller', [TellerController::class, 'index']);\n",
		"app/Http/TellerController.php":          "<?php\nnamespace App\\Http;\n\nclass TellerController\n{\n    public function index() { return 1; }\n}\n",
		"Api/AccountsController.cs":              "namespace Api\n{\n    public class AccountsController\n    {\n        [HttpGet(\"/api/accounts\")]\n        public int List() { return 1; }\n    }\n\n    public static class Program\n    {\n        public static void Main(string[] args) { }\n    }\n}\n",
	}
	for p, src := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := indexTree(t, root)
	res, err := trace.EntryPoints(context.Background(), s, trace.EntryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.EntryPoints {
		got = append(got, e.Kind+" "+e.Label+" "+e.Func.Name)
	}
	slices.Sort(got)
	want := []string{
		"http GET /accounts/:id AccountsController.show",
		"http GET /api/accounts AccountsController.List",
		"http GET /teller TellerController.index",
		"main Program.Main Program.Main",
	}
	if !slices.Equal(got, want) {
		t.Errorf("entry points:\n got  %q\n want %q", got, want)
	}
}
