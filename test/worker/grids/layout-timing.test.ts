/**
 * The grid parser's speed where it runs: in workerd (the pure parser's rules are in
 * layout.unit.test.ts, run in Node).
 */
import { describe, expect, it } from 'vitest';
import type { LayoutBox } from '../../../src/grids/layout';
import { parseGrid } from '../../../src/grids/store';
import { timeInBatches } from '../../../src/grids/timing';
// @ts-expect-error plain ESM module shared with the bench
import { bigLayout, bigMapping, nestedLayout } from '../../../bench/scenarios/40-grids.mjs';

const GRID = 7;

describe('performance in workerd', () => {
  const depth = (b: LayoutBox): number => (b.children.length ? 1 + Math.max(...b.children.map(depth)) : 0);
  it.each([
    ['flat', bigLayout as () => string, 2],
    ['nested', nestedLayout as () => string, 3],
  ])(
    'parses a %s 300-column layout with 200 cells in at most 5 ms per parse (median of batches)',
    async (kind, make, levels) => {
      const layout = make();
      const mapping: string = bigMapping();
      const first = parseGrid(layout, mapping, GRID);
      expect(first.layout).toMatchObject({ columns: 300, cells: 200 });
      expect(depth(first.layout!.root)).toBe(levels);
      const runs = 5;
      const { p50: perParse, mean } = await timeInBatches(24 * runs, runs, () => parseGrid(layout, mapping, GRID));
      console.log(
        `grids: ${perParse.toFixed(3)} ms per parse (${kind}, 300 columns, 200 cells, median of 24 batches of ${runs}; mean ${mean.toFixed(3)} ms; in workerd)`,
      );
      expect(perParse).toBeLessThanOrEqual(5);
    },
  );
});
