package trace

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func routeStrings(rs []scannedRoute) []string {
	var out []string
	for _, r := range rs {
		s := fmt.Sprintf("%d %s %s", r.line, r.method, r.path)
		if r.use != "" {
			s += " use " + r.use
		}
		out = append(out, s)
	}
	return out
}

// TestScanKtor: route blocks prefix the routes inside them and end with
// their brace; a map's get("a") and braces in strings are no routes.
func TestScanKtor(t *testing.T) {
	src := `import io.ktor.server.routing.*

fun Route.api() {
    route("/v1") {
        get { call.respondText("{ not a block") }
        route("items/") {
            delete("{id}") {
                val x = cache.get("a") { 1 }
            }
        }
        put("/p") { }
    }
    post("/top") {
    }
}
`
	want := []string{"5 GET /v1", "7 DELETE /v1/items/{id}", "11 PUT /v1/p", "13 POST /top"}
	if diff := cmp.Diff(want, routeStrings(scanKtor([]byte(src)))); diff != "" {
		t.Errorf("Ktor routes (-want +got):\n%s", diff)
	}
}

// TestScanVapor: path segments are joined; grouped and group prefix the
// builders they make; a call without segments, closure or handler is no
// route.
func TestScanVapor(t *testing.T) {
	src := `import Vapor

func routes(_ app: Application) throws {
    app.get { req in "root" }
    let api = app.grouped("api", "v1")
    api.post("users", ":id", use: updateUser)
    api.group("admin") { admin in
        admin.delete("users", ":id") { req async throws in
            return .ok
        }
    }
    let x = dict.get(key)
    app.get("health", use: self.health)
    app.put("todos", use: TodoController().update)
}
`
	want := []string{"4 GET /", "6 POST /api/v1/users/:id use updateUser", "8 DELETE /api/v1/admin/users/:id", "13 GET /health use health", "14 PUT /todos use update"}
	if diff := cmp.Diff(want, routeStrings(scanVapor([]byte(src)))); diff != "" {
		t.Errorf("Vapor routes (-want +got):\n%s", diff)
	}
}
