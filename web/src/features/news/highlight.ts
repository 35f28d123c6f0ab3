// The server marks what a search matched with `[start, end)` ranges counted in Unicode code
// points (api/src/search.rs), never with markup. This turns a text and its ranges into plain
// segments, so the matched words are drawn as <mark> elements and no HTML is ever parsed.

export interface Segment {
  text: string;
  match: boolean;
}

/**
 * Splits `text` at `ranges` (code point offsets, as `Array.from(text)` indexes it, so an
 * emoji or any letter outside the Basic Multilingual Plane counts once). Ranges out of
 * order, overlapping, empty or past the end are clipped or skipped rather than trusted.
 */
export function highlightSegments(text: string, ranges: readonly (readonly number[])[]): Segment[] {
  const points = Array.from(text);
  const segments: Segment[] = [];
  const push = (from: number, to: number, match: boolean) => {
    if (to <= from) return;
    const piece = points.slice(from, to).join('');
    const last = segments.at(-1);
    if (last && last.match === match) last.text += piece;
    else segments.push({ text: piece, match });
  };
  let at = 0;
  const sorted = [...ranges].filter((r) => r.length === 2).sort((a, b) => a[0] - b[0]);
  for (const [rawStart, rawEnd] of sorted) {
    const start = Math.max(at, Math.min(rawStart, points.length));
    const end = Math.min(rawEnd, points.length);
    if (end <= start) continue;
    push(at, start, false);
    push(start, end, true);
    at = end;
  }
  push(at, points.length, false);
  return segments;
}
