"use strict";

const http = require("http");
const { readFile, writeFile: save } = require("fs/promises");
const config = require("./config");
import("./telemetry").then((t) => t.start());

const DEFAULT_PORT = 8080;
var requests = 0;

/**
 * Handles HTTP requests for the task API.
 */
class Router extends EventTarget {
  #routes = new Map();
  static instance = null;

  constructor(prefix) {
    super();
    this.prefix = prefix;
    Router.instance = this;
  }

  add(method, path, handler) {
    this.#routes.set(`${method} ${path}`, handler);
    return this;
  }

  async handle(req, res) {
    requests++;
    const route = this.#routes.get(`${req.method} ${req.url}`);
    if (!route) {
      res.statusCode = 404;
      return res.end();
    }
    const body = await route({ req, url: req.url });
    res.end(JSON.stringify(body));
  }
}

function* ids(start = 0) {
  let next = start;
  while (true) yield next++;
}

// Reads the task list from disk.
const loadTasks = async function (file) {
  const text = await readFile(file, "utf8");
  return JSON.parse(text);
};

const listen = (port = DEFAULT_PORT) => {
  const router = new Router("/api");
  router.add("GET", "/tasks", () => loadTasks(config.tasksFile));
  const [first, ...rest] = [...ids()].slice(0, 2);
  const server = http.createServer((req, res) => router.handle(req, res));
  server.listen(port);
  return { server, first, rest };
};

module.exports = { listen, Router };
exports.save = save;
