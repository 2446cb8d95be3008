import { EventEmitter } from "events";
import * as path from "path";
import Logger, { Level as LogLevel } from "./logger";
import type { Task, TaskId } from "./types";

/** Maximum number of tasks kept in memory. */
export const MAX_TASKS = 100;
let counter = 0;

export enum Status {
  New = "new",
  Done = "done",
}

export type Filter = (t: Task) => boolean;

/** Something that can persist tasks. */
export interface Repository<T> extends Iterable<T> {
  readonly size: number;
  get(id: TaskId): T | undefined;
  put(item: T): void;
}

export namespace Defaults {
  export const dir = path.join("var", "tasks");
}

/**
 * In-memory task store.
 */
export class Store extends EventEmitter implements Repository<Task> {
  private items = new Map<TaskId, Task>();
  static instances = 0;
  #secret: string = "";

  constructor(private readonly log: Logger, public level: LogLevel = LogLevel.Info) {
    super();
    Store.instances++;
  }

  get size(): number {
    return this.items.size;
  }

  get(id: TaskId): Task | undefined {
    return this.items.get(id);
  }

  put(item: Task): void {
    this.items.set(item.id, { ...item, status: Status.New });
    this.log.info(`stored ${item.id}`);
    counter += 1;
    this.emit("put", item);
  }

  *[Symbol.iterator](): Iterator<Task> {
    yield* this.items.values();
  }
}

export abstract class Base {
  abstract describe(): string;
}

export function makeStore(log: Logger): Store {
  const store = new Store(log);
  const { size, level } = store;
  store.level = level;
  return store;
}

export const countDone = (tasks: Task[], filter?: Filter): number =>
  tasks.filter((t) => t.status === Status.Done && (!filter || filter(t))).length;
