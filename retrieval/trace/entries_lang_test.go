package trace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestEntryPointsKotlinScalaSwift: mains (Kotlin's top-level main, Scala's
// main in an object, object … extends App and @main, Swift's @main type and
// main.swift's top-level code) and HTTP routes (Ktor's routing blocks with
// nested route prefixes, Spring annotations in Kotlin, Play's conf/routes,
// Vapor's app.get with use: and with a closure) are entry points.
func TestEntryPointsKotlinScalaSwift(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		// Kotlin
		"kt/App.kt": "package shop\n\nfun main(args: Array<String>) {\n    println(\"up\")\n}\n",
		"kt/Routes.kt": `package shop

import io.ktor.server.routing.*

fun Application.module() {
    routing {
        get("/health") {
            call.respondText("ok")
        }
        route("/orders") {
            post {
                placeOrder(call)
            }
            get("/{id}") { call.respondText("one") }
        }
    }
}

fun placeOrder(call: ApplicationCall) {
    val m = mapOf("a" to 1).get("a")
}
`,
		"kt/OrderController.kt": `package shop

@RestController
class OrderController {
    @GetMapping("/api/orders")
    fun list(): List<String> = listOf()

    @PostMapping(value = ["/api/orders"])
    fun create(): String = ""

    fun helper(): Int = 1
}
`,
		// Scala
		"scala/app/Boot.scala":                      "package boot\n\nobject Boot {\n  def main(args: Array[String]): Unit = {\n    println(\"up\")\n  }\n}\n\nobject Server extends App {\n  println(\"serving\")\n}\n\nobject Worker extends IOApp.Simple {\n  val run = IO.unit\n}\n",
		"scala/app/Hello.scala":                     "package boot\n\n@main def hello(): Unit = println(\"hello\")\n\ndef notMain(): Unit = ()\n",
		"play/app/controllers/HomeController.scala": "package controllers\n\nclass HomeController {\n  def index() = Action { Ok(\"hi\") }\n\n  def show(id: Long) = Action { Ok(\"one\") }\n\n  def unused() = 1\n}\n",
		"play/conf/routes":                          "# Routes\nGET     /                 controllers.HomeController.index()\nGET     /items/:id        controllers.HomeController.show(id: Long)\n->      /admin            admin.Routes\n",
		// Swift
		"ios/Sources/Tool/main.swift": "import Foundation\n\nlet args = CommandLine.arguments\nprint(args)\n",
		"ios/Sources/App/App.swift":   "import SwiftUI\n\n@main\nstruct ShopApp: App {\n    var body: some Scene { WindowGroup { Text(\"hi\") } }\n}\n",
		"ios/Sources/Server/routes.swift": `import Vapor

func routes(_ app: Application) throws {
    app.get("hello") { req in
        return "hi"
    }
    app.post("users", ":id", use: updateUser)
}

func updateUser(req: Request) throws -> String {
    return "ok"
}
`,
	}
	for p, src := range files {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := indexTree(t, root)
	res, err := trace.EntryPoints(context.Background(), s, trace.EntryOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.EntryPoints {
		reg := ""
		if e.Registered != nil {
			reg = fmt.Sprintf(" @%s:%d", e.Registered.Path, e.Registered.StartLine)
		}
		got = append(got, e.Kind+" "+e.Label+" "+e.Func.Name+reg)
	}
	slices.Sort(got)
	want := []string{
		"http GET / HomeController.index @play/conf/routes:2",
		"http GET /api/orders OrderController.list",
		"http GET /health Application.module @kt/Routes.kt:7",
		"http GET /items/:id HomeController.show @play/conf/routes:3",
		"http GET /orders/{id} Application.module @kt/Routes.kt:14",
		"http GET /hello routes @ios/Sources/Server/routes.swift:4",
		"http POST /api/orders OrderController.create",
		"http POST /orders Application.module @kt/Routes.kt:11",
		"http POST /users/:id updateUser @ios/Sources/Server/routes.swift:7",
		"main Boot.main Boot.main",
		"main Server Server",
		"main Worker Worker",
		"main ShopApp ShopApp",
		"main hello hello",
		"main ios/Sources/Tool/main.swift (top level) ios/Sources/Tool/main.swift (top level)",
		"main kt/App.kt main main",
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entry points (-want +got):\n%s", diff)
	}
}

// TestKtorRouteStartsCallPath: a trace's call path up from a write starts
// at the Ktor route whose closure calls the writer, labelled with the
// route, in the function the routing block is written in.
func TestKtorRouteStartsCallPath(t *testing.T) {
	root := t.TempDir()
	src := `package shop

import io.ktor.server.routing.*

class Order(var total: Int)

fun placeOrder(o: Order) {
    o.total = 5
}

fun Application.module() {
    routing {
        route("/orders") {
            post {
                placeOrder(Order(0))
            }
        }
    }
}
`
	if err := os.WriteFile(filepath.Join(root, "Routes.kt"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := indexTree(t, root)
	res, err := trace.Trace(context.Background(), s, "Order.total", trace.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range res.Writes {
		for _, p := range w.Paths {
			got = append(got, p.Entry.Kind+" "+p.Entry.Label+" "+p.Entry.Func.Name)
		}
	}
	if !slices.Contains(got, "http POST /orders Application.module") {
		t.Errorf("write paths start at %q, want the POST /orders route", got)
	}
}
