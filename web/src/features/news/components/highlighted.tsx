import { highlightSegments } from '@/features/news/highlight';

/** A text with the words a search matched in <mark>, from the server's ranges. */
export function Highlighted({ text, ranges }: { text: string; ranges: readonly (readonly number[])[] }) {
  return (
    <>
      {highlightSegments(text, ranges).map((segment, i) =>
        segment.match ? (
          <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-inherit dark:bg-amber-400/30 dark:text-amber-50">
            {segment.text}
          </mark>
        ) : (
          segment.text
        ),
      )}
    </>
  );
}
