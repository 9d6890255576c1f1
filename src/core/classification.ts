import { invalidInput } from './errors.js';

/** The nine classification types; a value is `type` or `type:product`. */
export const CLASSIFICATION_TYPES = [
  'c2',
  'scanner',
  'proxy',
  'attack-infrastructure',
  'honeypot',
  'mcp',
  'cdn',
  'sector',
  'canary-attacker',
] as const;
export type ClassificationType = (typeof CLASSIFICATION_TYPES)[number];

const TYPES = new Set<string>(CLASSIFICATION_TYPES);

/** Product part: lower-cased, spaces (and runs of them) become `_`. */
export function normaliseClassificationProduct(product: string): string {
  return product.trim().toLowerCase().replace(/\s+/g, '_');
}

/**
 * Parses and normalises `type[:product]`. Throws an invalid-input error naming the value when the
 * type is not one of the nine.
 */
export function normaliseClassification(value: string): string {
  const trimmed = value.trim();
  const colon = trimmed.indexOf(':');
  const type = (colon < 0 ? trimmed : trimmed.slice(0, colon)).toLowerCase();
  if (!TYPES.has(type)) {
    throw invalidInput(
      `unknown classification type "${type}" in "${value}"; expected one of ${CLASSIFICATION_TYPES.join(', ')} (optionally type:product)`,
    );
  }
  if (colon < 0) return type;
  const product = normaliseClassificationProduct(trimmed.slice(colon + 1));
  return product ? `${type}:${product}` : type;
}

export function classificationType(value: string): string {
  const colon = value.indexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}

/** A classification list entry as stored: an IP range by its sortable keys. */
export interface StoredClassificationEntry {
  firstKey: string;
  lastKey: string;
  classification: string;
}
