import { describe, expect, it } from 'vitest';
import { paragraphs, readingMinutes } from '@/features/news/components/item-reader';

describe('the reader', () => {
  it('reads at 230 words a minute, never under one minute', () => {
    expect(readingMinutes(0)).toBe(1);
    expect(readingMinutes(100)).toBe(1);
    expect(readingMinutes(460)).toBe(2);
    expect(readingMinutes(1000)).toBe(4);
  });

  it('splits the content at blank lines, or falls back to the summary', () => {
    expect(paragraphs({ content: 'One.\n\n  Two.\n \nThree.', summary: 'S' })).toEqual(['One.', 'Two.', 'Three.']);
    expect(paragraphs({ content: '  ', summary: 'The summary.' })).toEqual(['The summary.']);
  });
});
