import { describe, expect, it } from 'vitest';
import { sourceName, stripCitations } from '@/lib/text';

describe('stripCitations', () => {
  it('removes numeric markers and the space before them', () => {
    expect(stripCitations('Models improved [1] a lot [23].')).toBe('Models improved a lot.');
  });
  it('keeps other brackets', () => {
    expect(stripCitations('Use [beta] features')).toBe('Use [beta] features');
  });
  it('handles empty input', () => {
    expect(stripCitations(undefined)).toBe('');
    expect(stripCitations(null)).toBe('');
  });
});

describe('sourceName', () => {
  it.each([
    ['https://www.theverge.com/2026/ai', 'Theverge'],
    ['https://techcrunch.com/x', 'Techcrunch'],
    ['https://blog.openai.com/post', 'Openai'],
    ['https://news.bbc.co.uk/story', 'Bbc'],
    ['http://localhost:8080/a', 'Localhost'],
  ])('%s → %s', (url, name) => {
    expect(sourceName(url)).toBe(name);
  });
  it('gives null for a missing or broken URL', () => {
    expect(sourceName(null)).toBeNull();
    expect(sourceName('not a url')).toBeNull();
  });
});
