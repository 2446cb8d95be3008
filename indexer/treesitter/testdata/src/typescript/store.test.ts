import { describe, expect, it, beforeEach } from "vitest";
import { Store, makeStore, Status } from "./store";
import Logger from "./logger";
import fs = require("fs");

type Fixture = { store: Store; dir: string };

function fakeLogger(): Logger {
  return new Logger("test");
}

describe("Store", () => {
  let store: Store;
  let log = fakeLogger();

  beforeEach(() => {
    store = makeStore(log);
  });

  it("puts and gets a task", () => {
    const task = { id: "a", title: "write tests", status: Status.New };
    store.put(task);
    expect(store.get("a")).toEqual(task);
    expect(store.size).toBe(1);
  });

  it("counts inserts", async () => {
    const s: Store = new Store(log);
    for (let i = 0; i < 3; i++) {
      s.put({ id: String(i), title: "t", status: Status.Done });
    }
    expect(Store.instances).toBeGreaterThan(0);
  });
});

async function withTimeout<T>(p: Promise<T>, ms = 100): Promise<T> {
  const timer = setTimeout(() => {
    throw new Error("timeout");
  }, ms);
  try {
    return await p;
  } finally {
    clearTimeout(timer);
  }
}

function tempFixture(): Fixture {
  const dir = fs.mkdtempSync("store-");
  return { store: makeStore(fakeLogger()), dir };
}

export const helpers = { fakeLogger, withTimeout, tempFixture };
