/**
 * A binary min-heap ordered by (`at`, then insertion order): the simulation's event queue and
 * its SQS queues' visibility timers. Push and pop are O(log n), so a run of 100,000 items and
 * its several hundred thousand events stays fast.
 */
export interface Timed {
  at: number;
}

export class MinHeap<T extends Timed> {
  readonly #items: { value: T; seq: number }[] = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  push(value: T): void {
    const h = this.#items;
    h.push({ value, seq: this.#seq++ });
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(i, p)) break;
      this.#swap(i, p);
      i = p;
    }
  }

  peek(): T | undefined {
    return this.#items[0]?.value;
  }

  pop(): T | undefined {
    const h = this.#items;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined) return undefined;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(l, m)) m = l;
        if (r < h.length && this.#less(r, m)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top.value;
  }

  #less(i: number, j: number): boolean {
    const a = this.#items[i] as { value: T; seq: number };
    const b = this.#items[j] as { value: T; seq: number };
    return a.value.at < b.value.at || (a.value.at === b.value.at && a.seq < b.seq);
  }

  #swap(i: number, j: number): void {
    const h = this.#items;
    [h[i], h[j]] = [h[j] as { value: T; seq: number }, h[i] as { value: T; seq: number }];
  }
}
