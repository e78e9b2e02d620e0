/**
 * A line with more points than 2 × its pixel width, thinned to what can be seen: in each
 * pixel column the lowest and the highest point, in the order they came (so peaks, dips and
 * the line's shape stay as they were drawn at full resolution). A gap (NaN) in a column
 * stays a gap after its points. The result has at most two points per column, so its size
 * is bounded by the width whatever the data. When x does not grow monotonically (data not
 * sorted by its index) a column is a run of n / width consecutive points instead.
 */

export interface Points {
  x: Float64Array;
  y: Float64Array;
}

/** `x`, `y` in pixels (NaN: a gap); `width` the plot's width in pixels. */
export function decimate(x: Float64Array, y: Float64Array, width: number): Points {
  const n = x.length;
  const w = Math.max(1, Math.floor(width));
  if (n <= 2 * w) return { x, y };
  let monotone = true;
  let last = -Infinity;
  for (let i = 0; i < n && monotone; i++) {
    const v = x[i]!;
    if (Number.isNaN(v)) continue;
    if (v < last) monotone = false;
    last = v;
  }
  const per = Math.ceil(n / w);
  const bucket = monotone ? (i: number) => Math.floor(x[i]!) : (i: number) => Math.floor(i / per);
  const ox = new Float64Array(3 * (w + 2));
  const oy = new Float64Array(3 * (w + 2));
  let o = 0;
  let i = 0;
  while (i < n) {
    // Points before the first known x: a gap before anything is drawn.
    if (Number.isNaN(x[i]!)) {
      if (o > 0 && !Number.isNaN(oy[o - 1]!)) {
        ox[o] = NaN;
        oy[o++] = NaN;
      }
      i++;
      continue;
    }
    const b = bucket(i);
    let lo = -1;
    let hi = -1;
    let gap = false;
    // A point without an x inside the run is a gap of the run, not a run of its own.
    for (; i < n && (Number.isNaN(x[i]!) || bucket(i) === b); i++) {
      const v = y[i]!;
      if (Number.isNaN(v) || Number.isNaN(x[i]!)) {
        gap = true;
        continue;
      }
      if (lo < 0 || v < y[lo]!) lo = i;
      if (hi < 0 || v > y[hi]!) hi = i;
    }
    if (o + 3 > ox.length) break; // cannot happen for monotone x within [0, width]; a guard for the rest
    if (lo >= 0) {
      const [a, c] = lo <= hi ? [lo, hi] : [hi, lo];
      ox[o] = x[a]!;
      oy[o++] = y[a]!;
      if (c !== a) {
        ox[o] = x[c]!;
        oy[o++] = y[c]!;
      }
    }
    if (gap && o > 0 && !Number.isNaN(oy[o - 1]!)) {
      ox[o] = NaN;
      oy[o++] = NaN;
    }
  }
  return { x: ox.subarray(0, o), y: oy.subarray(0, o) };
}
