/**
 * What one drawing draws at most, whatever the data: the drawings' size and time stay
 * linear in the smaller of the data and these caps, and a note says what was left out.
 */

/** Bars: categories drawn, and bars in all (series × categories). */
export const MAX_CATEGORIES = 2000;
export const MAX_BARS = 5000;
/** Scatter points drawn (an even sample of the rest). */
export const MAX_POINTS = 10_000;
/** Donut slices (the smallest gathered in one "Other"). */
export const MAX_SLICES = 20;
/** Table rows and cells drawn. */
export const MAX_TABLE_ROWS = 1000;
export const MAX_TABLE_CELLS = 20_000;
/** Rows and cells of the data table for screen readers. */
export const A11Y_ROWS = 1000;
export const A11Y_CELLS = 20_000;
