/**
 * CVSS vector strings → CVE 5 / contract CVSS objects (`cvssV2_0`, `cvssV3_0`, `cvssV3_1`,
 * `cvssV4_0`). v2 and v3.x base scores are computed with the specifications' formulas (FIRST CVSS
 * v2 guide §3.2.1, CVSS v3.0/v3.1 specification §7.1 and Appendix A); v4.0 has no closed formula
 * (a MacroVector lookup), so a v4.0 object carries the vector's metrics and no score.
 */
import { isObject, type JsonObject } from './types.js';

export type CvssKey = 'cvssV2_0' | 'cvssV3_0' | 'cvssV3_1' | 'cvssV4_0';

type Names = Record<string, [string, Record<string, string>]>;

const IMPACT3 = { H: 'HIGH', L: 'LOW', N: 'NONE' };
const V3: Names = {
  AV: ['attackVector', { N: 'NETWORK', A: 'ADJACENT_NETWORK', L: 'LOCAL', P: 'PHYSICAL' }],
  AC: ['attackComplexity', { L: 'LOW', H: 'HIGH' }],
  PR: ['privilegesRequired', { N: 'NONE', L: 'LOW', H: 'HIGH' }],
  UI: ['userInteraction', { N: 'NONE', R: 'REQUIRED' }],
  S: ['scope', { U: 'UNCHANGED', C: 'CHANGED' }],
  C: ['confidentialityImpact', IMPACT3],
  I: ['integrityImpact', IMPACT3],
  A: ['availabilityImpact', IMPACT3],
};
const IMPACT2 = { N: 'NONE', P: 'PARTIAL', C: 'COMPLETE' };
const V2: Names = {
  AV: ['accessVector', { L: 'LOCAL', A: 'ADJACENT_NETWORK', N: 'NETWORK' }],
  AC: ['accessComplexity', { H: 'HIGH', M: 'MEDIUM', L: 'LOW' }],
  Au: ['authentication', { M: 'MULTIPLE', S: 'SINGLE', N: 'NONE' }],
  C: ['confidentialityImpact', IMPACT2],
  I: ['integrityImpact', IMPACT2],
  A: ['availabilityImpact', IMPACT2],
};
const V4: Names = {
  AV: ['attackVector', { N: 'NETWORK', A: 'ADJACENT', L: 'LOCAL', P: 'PHYSICAL' }],
  AC: ['attackComplexity', { L: 'LOW', H: 'HIGH' }],
  AT: ['attackRequirements', { N: 'NONE', P: 'PRESENT' }],
  PR: ['privilegesRequired', { N: 'NONE', L: 'LOW', H: 'HIGH' }],
  UI: ['userInteraction', { N: 'NONE', P: 'PASSIVE', A: 'ACTIVE' }],
  VC: ['vulnConfidentialityImpact', IMPACT3],
  VI: ['vulnIntegrityImpact', IMPACT3],
  VA: ['vulnAvailabilityImpact', IMPACT3],
  SC: ['subConfidentialityImpact', IMPACT3],
  SI: ['subIntegrityImpact', IMPACT3],
  SA: ['subAvailabilityImpact', IMPACT3],
  E: ['exploitMaturity', { X: 'NOT_DEFINED', A: 'ATTACKED', P: 'PROOF_OF_CONCEPT', U: 'UNREPORTED' }],
  S: ['safety', { X: 'NOT_DEFINED', N: 'NEGLIGIBLE', P: 'PRESENT' }],
  AU: ['automatable', { X: 'NOT_DEFINED', N: 'NO', Y: 'YES' }],
  R: ['recovery', { X: 'NOT_DEFINED', A: 'AUTOMATIC', U: 'USER', I: 'IRRECOVERABLE' }],
  V: ['valueDensity', { X: 'NOT_DEFINED', D: 'DIFFUSE', C: 'CONCENTRATED' }],
  RE: ['vulnerabilityResponseEffort', { X: 'NOT_DEFINED', L: 'LOW', M: 'MODERATE', H: 'HIGH' }],
  U: ['providerUrgency', { X: 'NOT_DEFINED', Clear: 'CLEAR', Green: 'GREEN', Amber: 'AMBER', Red: 'RED' }],
};
const V2_REQUIRED = ['AV', 'AC', 'Au', 'C', 'I', 'A'];
const V3_REQUIRED = ['AV', 'AC', 'PR', 'UI', 'S', 'C', 'I', 'A'];
const V4_REQUIRED = ['AV', 'AC', 'AT', 'PR', 'UI', 'VC', 'VI', 'VA', 'SC', 'SI', 'SA'];

/** Splits `K:V/K:V` into a map; undefined when malformed or a metric repeats. */
function metricsOf(parts: string[]): Map<string, string> | undefined {
  const map = new Map<string, string>();
  for (const part of parts) {
    const match = /^([A-Za-z]+):([A-Za-z]+)$/.exec(part);
    if (!match) return undefined;
    const metric = match[1]!; // both groups always take part in a match
    if (map.has(metric)) return undefined;
    map.set(metric, match[2]!);
  }
  return map;
}

/** Named base metrics; undefined when a required one is missing or a value is unknown. */
function named(map: Map<string, string>, names: Names, required: string[]): JsonObject | undefined {
  if (!required.every((k) => map.has(k))) return undefined;
  const out: JsonObject = {};
  for (const [metric, value] of map) {
    // Own keys only: a metric or value such as `constructor` must not find what every object inherits.
    if (!Object.hasOwn(names, metric)) continue; // temporal/environmental metrics stay in the vector string only
    const [field, values] = names[metric]!;
    if (!Object.hasOwn(values, value)) return undefined;
    out[field] = values[value]!;
  }
  return out;
}

export function severityOf(score: number): string {
  if (score === 0) return 'NONE';
  if (score < 4) return 'LOW';
  if (score < 7) return 'MEDIUM';
  if (score < 9) return 'HIGH';
  return 'CRITICAL';
}

/** CVSS v3.1 Roundup (Appendix A): smallest one-decimal number ≥ x, robust to float error. */
function roundup31(x: number): number {
  const integer = Math.round(x * 100000);
  return integer % 10000 === 0 ? integer / 100000 : (Math.floor(integer / 10000) + 1) / 10;
}
const roundup30 = (x: number) => Math.ceil(x * 10) / 10;

// The scores are computed after `named` accepted the metrics (each required one present, with a
// known value), so every table lookup below finds its entry.

function score3(m: Map<string, string>, minor: '0' | '1'): number {
  const changed = m.get('S') === 'C';
  const cia = { H: 0.56, L: 0.22, N: 0 } as Record<string, number>;
  const av = { N: 0.85, A: 0.62, L: 0.55, P: 0.2 }[m.get('AV')!]!;
  const ac = { L: 0.77, H: 0.44 }[m.get('AC')!]!;
  const pr = (changed ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 })[m.get('PR')!]!;
  const ui = { N: 0.85, R: 0.62 }[m.get('UI')!]!;
  const iss = 1 - (1 - cia[m.get('C')!]!) * (1 - cia[m.get('I')!]!) * (1 - cia[m.get('A')!]!);
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  const exploitability = 8.22 * av * ac * pr * ui;
  if (impact <= 0) return 0;
  const roundup = minor === '1' ? roundup31 : roundup30;
  return roundup(Math.min(changed ? 1.08 * (impact + exploitability) : impact + exploitability, 10));
}

function score2(m: Map<string, string>): number {
  const cia = { N: 0, P: 0.275, C: 0.66 } as Record<string, number>;
  const impact = 10.41 * (1 - (1 - cia[m.get('C')!]!) * (1 - cia[m.get('I')!]!) * (1 - cia[m.get('A')!]!));
  const av = { L: 0.395, A: 0.646, N: 1 }[m.get('AV')!]!;
  const ac = { H: 0.35, M: 0.61, L: 0.71 }[m.get('AC')!]!;
  const au = { M: 0.45, S: 0.56, N: 0.704 }[m.get('Au')!]!;
  const exploitability = 20 * av * ac * au;
  const f = impact === 0 ? 0 : 1.176;
  return Math.round((0.6 * impact + 0.4 * exploitability - 1.5) * f * 10) / 10;
}

/**
 * Parses a CVSS vector string (v2 without prefix, `CVSS:3.0/`, `CVSS:3.1/`, `CVSS:4.0/`).
 * Returns the metric key and the CVE 5 object (field names as in the contract), or undefined.
 */
export function parseCvssVector(vector: string): { key: CvssKey; cvss: JsonObject } | undefined {
  const text = vector.trim();
  const prefixed = /^CVSS:(\d\.\d)\/(.*)$/.exec(text);
  if (!prefixed) {
    const body = text.replace(/^\(|\)$/g, '');
    const map = metricsOf(body.split('/'));
    if (!map) return undefined;
    const metrics = named(map, V2, V2_REQUIRED);
    if (!metrics) return undefined;
    const cvss: JsonObject = { version: '2.0', vectorString: body, ...metrics, baseScore: score2(map) };
    cvss.attackComplexity = cvss.accessComplexity; // the contract's name for v2 AC (MCvssV20)
    return { key: 'cvssV2_0', cvss };
  }
  const version = prefixed[1]!; // both groups always take part in a match
  const body = prefixed[2]!;
  const map = metricsOf(body.split('/'));
  if (!map) return undefined;
  if (version === '3.0' || version === '3.1') {
    const metrics = named(map, V3, V3_REQUIRED);
    if (!metrics) return undefined;
    const baseScore = score3(map, version === '3.1' ? '1' : '0');
    return {
      key: version === '3.1' ? 'cvssV3_1' : 'cvssV3_0',
      cvss: { version, vectorString: text, ...metrics, baseScore, baseSeverity: severityOf(baseScore) },
    };
  }
  if (version === '4.0') {
    const metrics = named(map, V4, V4_REQUIRED);
    if (!metrics) return undefined;
    return { key: 'cvssV4_0', cvss: { version, vectorString: text, ...metrics } };
  }
  return undefined;
}

/** The CVSS key of a NVD 2.0 metric list name (`cvssMetricV31` → `cvssV3_1`). */
export const NVD_CVSS_KEYS: Record<string, CvssKey> = {
  cvssMetricV2: 'cvssV2_0',
  cvssMetricV30: 'cvssV3_0',
  cvssMetricV31: 'cvssV3_1',
  cvssMetricV40: 'cvssV4_0',
};

export const isCvssObject = (value: unknown): value is JsonObject =>
  isObject(value) && typeof value.vectorString === 'string';
