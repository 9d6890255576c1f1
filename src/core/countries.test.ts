import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, countryCode, countryName } from './countries.js';

describe('countryName', () => {
  it.each([
    ['US', 'United States'],
    ['us', 'United States'],
    [' de ', 'Germany'],
    ['GB', 'United Kingdom'],
    ['KR', 'South Korea'],
    ['CI', 'Ivory Coast'],
    ['XK', 'Kosovo'],
  ])('%s → %s', (code, name) => {
    expect(countryName(code)).toBe(name);
  });

  it('is undefined for unknown codes', () => {
    expect(countryName('ZZ')).toBeUndefined();
    expect(countryName('')).toBeUndefined();
    expect(countryName('constructor')).toBeUndefined();
  });

  it('covers every ISO 3166-1 alpha-2 code (249) plus XK', () => {
    expect(COUNTRY_CODES).toHaveLength(250);
    for (const code of COUNTRY_CODES) {
      expect(code).toMatch(/^[A-Z]{2}$/);
      expect(countryName(code)).toBeTruthy();
    }
  });
});

describe('countryCode', () => {
  it.each([
    ['United States', 'US'],
    ['united states', 'US'],
    ['  UNITED   STATES ', 'US'],
    ['United States of America', 'US'],
    ['Russian Federation', 'RU'],
    ['Russia', 'RU'],
    ['The Netherlands', 'NL'],
    ['Türkiye', 'TR'],
    ['Turkey', 'TR'],
    ["Côte d'Ivoire", 'CI'],
    ['Åland Islands', 'AX'],
  ])('%s → %s', (name, code) => {
    expect(countryCode(name)).toBe(code);
  });

  it('round-trips every name in the table', () => {
    for (const code of COUNTRY_CODES) expect(countryCode(countryName(code)!)).toBe(code);
  });

  it('is undefined for unknown names', () => {
    expect(countryCode('Atlantis')).toBeUndefined();
  });
});
