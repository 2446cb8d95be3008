export interface Store {
  put(id: number): void;
}

export class MemStore implements Store {
  private ids: number[] = [];

  put(id: number): void {
    this.ids.push(id);
  }
}
