import { formatCount } from '../format.js';

const DAY_MS = 86_400_000;
const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18;

/** Every day from the first to the last of `counts`, with 0 for days without a record. */
function dailySeries(counts: ReadonlyArray<{ value: string | number; count: number }>) {
  const byDay = new Map<string, number>();
  for (const entry of counts) {
    const day = String(entry.value);
    if (/^\d{4}-\d{2}-\d{2}$/.test(day)) byDay.set(day, entry.count);
  }
  const days = [...byDay.keys()].sort();
  if (days.length === 0) return [];
  const first = Date.parse(`${days[0]}T00:00:00Z`);
  const last = Date.parse(`${days[days.length - 1]}T00:00:00Z`);
  const series: Array<{ day: string; count: number }> = [];
  for (let at = first; at <= last; at += DAY_MS) {
    const day = new Date(at).toISOString().slice(0, 10);
    series.push({ day, count: byDay.get(day) ?? 0 });
  }
  return series;
}

/**
 * Records by the day they were first seen, as bars; a table below holds the same numbers for
 * screen readers and for reading exact values.
 */
export function DateChart({ counts }: { counts: ReadonlyArray<{ value: string | number; count: number }> }) {
  const series = dailySeries(counts);
  if (series.length === 0) return <p class="empty">No first-seen dates.</p>;
  const top = Math.max(1, ...series.map((entry) => entry.count));
  const step = WIDTH / series.length;
  const gap = step > 4 ? 1 : 0;
  const first = series[0]!.day;
  const last = series[series.length - 1]!.day;
  const busiest = series.reduce((best, entry) => (entry.count > best.count ? entry : best));
  const summary = `Bar chart of records by first-seen day, ${first} to ${last}; busiest day ${busiest.day} with ${formatCount(busiest.count)} records.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + AXIS}`} role="img" aria-label={summary}>
        {series.map((entry, index) => {
          const height = (entry.count / top) * HEIGHT;
          return (
            <rect
              key={entry.day}
              x={index * step + gap / 2}
              y={HEIGHT - height}
              width={Math.max(0.5, step - gap)}
              height={height}
              fill="#3a6ea5"
            >
              <title>{`${entry.day}: ${formatCount(entry.count)}`}</title>
            </rect>
          );
        })}
        <line x1={0} x2={WIDTH} y1={HEIGHT + 0.5} y2={HEIGHT + 0.5} stroke="#4f5863" />
        <text x={0} y={HEIGHT + AXIS - 3} font-size="12" fill="#4f5863">
          {first}
        </text>
        <text x={WIDTH} y={HEIGHT + AXIS - 3} font-size="12" fill="#4f5863" text-anchor="end">
          {last}
        </text>
      </svg>
      <figcaption>
        <details>
          <summary>First-seen days as a table</summary>
          <div class="table-wrap">
            <table>
              <caption>Records by first-seen day (UTC)</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col" class="number">
                    Records
                  </th>
                </tr>
              </thead>
              <tbody>
                {series.map((entry) => (
                  <tr key={entry.day}>
                    <td>{entry.day}</td>
                    <td class="number">{formatCount(entry.count)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      </figcaption>
    </figure>
  );
}
