/**
 * A cache an isolate keeps in module scope, bounded: at most `maxEntries` entries and, when
 * `weigh` is given, at most `maxWeight` of their summed weights (e.g. bytes). Over either
 * bound the least recently used entries leave first (a hit makes an entry the most recent).
 * An isolate lives for many requests, so nothing it keeps between them may grow with traffic
 * (docs/PERFORMANCE.md, Memory).
 */
export interface CacheBounds<V> {
  maxEntries: number;
  maxWeight?: number;
  weigh?: (value: V) => number;
}

export class BoundedCache<K, V> {
  readonly #map = new Map<K, V>();
  #weight = 0;

  constructor(private readonly bounds: CacheBounds<V>) {}

  get size(): number {
    return this.#map.size;
  }

  /** The summed weight of the entries (0 without `weigh`). */
  get weight(): number {
    return this.#weight;
  }

  get(key: K): V | undefined {
    if (!this.#map.has(key)) return undefined;
    const value = this.#map.get(key)!;
    this.#map.delete(key);
    this.#map.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.delete(key);
    this.#map.set(key, value);
    this.#weight += this.#weigh(value);
    const maxWeight = this.bounds.maxWeight ?? Infinity;
    for (const [k] of this.#map) {
      if (this.#map.size <= this.bounds.maxEntries && this.#weight <= maxWeight) break;
      this.delete(k);
    }
  }

  delete(key: K): void {
    if (!this.#map.has(key)) return;
    this.#weight -= this.#weigh(this.#map.get(key)!);
    this.#map.delete(key);
  }

  /** Removes every entry `drop` picks. */
  deleteWhere(drop: (value: V, key: K) => boolean): void {
    for (const [k, v] of this.#map) if (drop(v, k)) this.delete(k);
  }

  #weigh(value: V): number {
    return this.bounds.weigh?.(value) ?? 0;
  }
}
