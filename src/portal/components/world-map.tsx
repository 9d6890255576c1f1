import { useEffect, useState } from 'preact/hooks';
import { countryName, formatCount } from '../format.js';
import type { CountryShape } from '../map-data.js';
import { ErrorMessage, Loading } from './status.js';

type MapData = typeof import('../map-data.js');

let loading: Promise<MapData> | undefined;
/** The map's shapes, fetched once per page load (a separate script, about 40 KB compressed). */
const loadMap = (): Promise<MapData> => {
  loading ??= import('../map-data.js');
  return loading;
};

/** Five shades from light to dark blue; grey for no match. */
const SHADES = ['#c6dbef', '#9ecae1', '#6baed6', '#3182bd', '#08519c'];
const NONE = '#e4e7eb';

function shadeOf(count: number, top: number): string {
  if (count <= 0) return NONE;
  // A square-root scale, so a few large countries do not wash the others out.
  const step = Math.min(SHADES.length - 1, Math.floor(Math.sqrt(count / top) * SHADES.length));
  return SHADES[step]!;
}

/**
 * A choropleth of the matches by country. Each country's `<title>` names it with its count; the
 * picture as a whole is labelled with the counts in words, for screen readers.
 */
export function WorldMap({ counts }: { counts: ReadonlyArray<{ value: string | number; count: number }> }) {
  const [data, setData] = useState<MapData | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    loadMap().then(
      (loaded) => live && setData(loaded),
      (error: unknown) => live && setFailed(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, []);
  if (failed) return <ErrorMessage message={`The map could not be loaded: ${failed}`} />;
  if (!data) return <Loading what="Loading the map" />;

  const byCode = new Map(counts.map((entry) => [String(entry.value).toUpperCase(), entry.count]));
  const top = Math.max(1, ...byCode.values());
  const described = counts
    .slice(0, 10)
    .map((entry) => `${countryName(String(entry.value))} ${formatCount(entry.count)}`)
    .join(', ');
  const summary =
    counts.length === 0
      ? 'World map: no matching record has a country.'
      : `World map of matching records by country: ${described}${counts.length > 10 ? `, and ${counts.length - 10} more countries` : ''}.`;
  const titleOf = (shape: CountryShape) => {
    const count = byCode.get(shape.code) ?? 0;
    const name = shape.code ? countryName(shape.code) : shape.name;
    return `${name}: ${formatCount(count)} ${count === 1 ? 'record' : 'records'}`;
  };
  return (
    <figure class="map">
      <svg
        viewBox={`0 0 ${data.MAP_WIDTH} ${data.MAP_HEIGHT}`}
        role="img"
        aria-label={summary}
        data-countries={byCode.size}
      >
        {data.COUNTRY_SHAPES.map((shape) => (
          <path
            key={`${shape.code}-${shape.name}`}
            d={shape.path}
            fill={shadeOf(byCode.get(shape.code) ?? 0, top)}
            data-code={shape.code || undefined}
          >
            <title>{titleOf(shape)}</title>
          </path>
        ))}
      </svg>
      <figcaption>
        <ul class="legend" aria-label="Legend">
          <li>
            <span class="swatch" style={{ background: NONE }} /> none
          </li>
          <li>
            <span class="swatch" style={{ background: SHADES[0] }} /> fewer
          </li>
          <li>
            <span class="swatch" style={{ background: SHADES[SHADES.length - 1] }} /> most ({formatCount(top)})
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}
