/**
 * The world map's shapes: Natural Earth's 1:110m countries from world-atlas (public domain data,
 * ISC-licensed package), projected here once. Loaded with a dynamic import, so the data is fetched
 * only when a map is shown.
 */
import { numericToAlpha2 } from 'i18n-iso-countries';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import atlas from 'world-atlas/countries-110m.json' with { type: 'json' };

export interface CountryShape {
  /** ISO 3166-1 alpha-2, or '' when the shape has none (e.g. disputed areas). */
  code: string;
  name: string;
  /** SVG path data in the map's coordinates. */
  path: string;
}

/** The map's extent: longitude −180…180, latitude 84…−58 (Antarctica is left out). */
export const MAP_WIDTH = 960;
const NORTH = 84;
const SOUTH = -58;
const SCALE = MAP_WIDTH / 360;
export const MAP_HEIGHT = Math.round((NORTH - SOUTH) * SCALE);

/** Shapes without an ISO numeric code in Natural Earth, by name. */
const CODE_BY_NAME: Record<string, string> = { Kosovo: 'XK', 'N. Cyprus': 'CY', Somaliland: 'SO' };

/** Equirectangular (plate carrée): simple, and fine for a choropleth at this size. */
const point = ([longitude, latitude]: number[]): string =>
  `${((longitude! + 180) * SCALE).toFixed(1)},${((NORTH - latitude!) * SCALE).toFixed(1)}`;

const ringPath = (ring: number[][]): string => `M${ring.map(point).join('L')}Z`;

type Polygon = number[][][];

function shapesOf(): CountryShape[] {
  const topology = atlas as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const collection = feature<{ name: string }>(topology, topology.objects.countries);
  const shapes: CountryShape[] = [];
  for (const country of collection.features) {
    const name = country.properties?.name ?? '';
    const id = country.id === undefined ? undefined : String(country.id);
    if (id === '010') continue; // Antarctica
    const code = (id && numericToAlpha2(id)) || CODE_BY_NAME[name] || '';
    const geometry = country.geometry;
    const polygons: Polygon[] =
      geometry?.type === 'Polygon'
        ? [geometry.coordinates as Polygon]
        : geometry?.type === 'MultiPolygon'
          ? (geometry.coordinates as Polygon[])
          : [];
    const path = polygons.flatMap((polygon) => polygon.map(ringPath)).join('');
    if (path) shapes.push({ code, name, path });
  }
  return shapes;
}

export const COUNTRY_SHAPES: readonly CountryShape[] = shapesOf();
