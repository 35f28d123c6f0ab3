import { describe, expect, it } from 'vitest';
import { highlightSegments } from '@/features/news/highlight';

const marked = (text: string, ranges: number[][]) =>
  highlightSegments(text, ranges)
    .map((s) => (s.match ? `[${s.text}]` : s.text))
    .join('');

describe('highlightSegments', () => {
  it('splits a text at the ranges, in order', () => {
    expect(highlightSegments('Agents plan tools', [[0, 6], [12, 17]])).toEqual([
      { text: 'Agents', match: true },
      { text: ' plan ', match: false },
      { text: 'tools', match: true },
    ]);
  });

  it('gives the whole text unmarked without ranges, and nothing for an empty text', () => {
    expect(highlightSegments('No match here', [])).toEqual([{ text: 'No match here', match: false }]);
    expect(highlightSegments('', [])).toEqual([]);
  });

  it('counts code points, so accents, CJK and emoji before a match do not shift it', () => {
    // "é" is one code point here; "🤖" is two UTF-16 units but one code point.
    expect(marked('Café 🤖 robots', [[7, 13]])).toBe('Café 🤖 [robots]');
    expect(marked('🤖🤖 agentes autónomos', [[3, 10], [11, 20]])).toBe('🤖🤖 [agentes] [autónomos]');
    expect(marked('大型语言模型 LLM', [[0, 2], [7, 10]])).toBe('[大型]语言模型 [LLM]');
    // A match that is itself an emoji stays whole.
    expect(marked('go 🚀 now', [[3, 4]])).toBe('go [🚀] now');
  });

  it('counts a decomposed accent as the two code points the server counts', () => {
    const text = 'Cafe\u0301 robots';
    expect(marked(text, [[0, 5]])).toBe('[Cafe\u0301] robots');
  });

  it('does not trust ranges: unsorted, overlapping, empty or past the end', () => {
    expect(marked('one two three', [[8, 13], [0, 3]])).toBe('[one] two [three]');
    expect(marked('one two three', [[0, 5], [4, 7]])).toBe('[one two] three');
    expect(marked('one two', [[2, 2]])).toBe('one two');
    expect(marked('one two', [[4, 99]])).toBe('one [two]');
    expect(marked('one', [[7, 9]])).toBe('one');
  });

  it('keeps markup as plain text', () => {
    expect(highlightSegments('<b>bold</b>', [[3, 7]])).toEqual([
      { text: '<b>', match: false },
      { text: 'bold', match: true },
      { text: '</b>', match: false },
    ]);
  });
});
