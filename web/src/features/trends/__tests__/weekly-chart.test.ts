import { describe, expect, it } from 'vitest';
import { changeLabel } from '@/features/trends/components/trends-view';
import { barHeights } from '@/features/trends/components/weekly-chart';

describe('weekly chart', () => {
  it('scales bars to the largest week and keeps a mention visible', () => {
    expect(barHeights([0, 0, 0, 0, 0, 0, 0, 12], 32)).toEqual([0, 0, 0, 0, 0, 0, 0, 32]);
    expect(barHeights([40, 1, 20], 32)).toEqual([32, 1, 16]);
    expect(barHeights([0, 0], 32)).toEqual([0, 0]);
  });

  it('says a change as a factor when rising and a percentage when falling', () => {
    expect(changeLabel(13)).toBe('×13');
    expect(changeLabel(1.5)).toBe('×1.5');
    expect(changeLabel(0.18)).toBe('−82%');
  });
});
