import { MemStore, Store } from "./store";

export function checkout(s: Store, id: number): void {
  s.put(id);
}

checkout(new MemStore(), 1);
