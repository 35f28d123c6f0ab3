/** The bar heights (0 to `height`) of weekly counts, scaled to the largest. */
export function barHeights(weeks: number[], height: number): number[] {
  const max = Math.max(1, ...weeks);
  return weeks.map((n) => (n === 0 ? 0 : Math.max(1, Math.round((n / max) * height))));
}

/** A small inline chart of a term's weekly counts, oldest first (no chart library). */
export function WeeklyChart({ weeks, label }: { weeks: number[]; label: string }) {
  const height = 32;
  const bar = 8;
  const gap = 3;
  const width = weeks.length * (bar + gap) - gap;
  const heights = barHeights(weeks, height);
  return (
    <svg
      role="img"
      aria-label={`${label}: ${weeks.join(', ')} stories a week, oldest first`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      className="shrink-0"
      data-testid="trend-chart"
    >
      <rect x={0} y={height - 1} width={width} height={1} className="fill-slate-200 dark:fill-slate-700" />
      {heights.map((h, i) => (
        <rect
          key={i}
          x={i * (bar + gap)}
          y={height - h}
          width={bar}
          height={h}
          rx={1.5}
          className={i === weeks.length - 1 ? 'fill-indigo-600 dark:fill-indigo-400' : 'fill-slate-300 dark:fill-slate-600'}
        >
          <title>{`${weeks[i]}`}</title>
        </rect>
      ))}
    </svg>
  );
}
