import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCvssVector, severityOf } from './cvss.js';
import { fixture } from '../../../test/support/fixtures.js';

const NVD_DIR = fixture('nvd');

describe('parseCvssVector', () => {
  it('parses v3.1 with the contract field names and computes the base score', () => {
    expect(parseCvssVector('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H')).toEqual({
      key: 'cvssV3_1',
      cvss: {
        version: '3.1',
        vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
        attackVector: 'NETWORK',
        attackComplexity: 'LOW',
        privilegesRequired: 'NONE',
        userInteraction: 'NONE',
        scope: 'UNCHANGED',
        confidentialityImpact: 'HIGH',
        integrityImpact: 'HIGH',
        availabilityImpact: 'HIGH',
        baseScore: 9.8,
        baseSeverity: 'CRITICAL',
      },
    });
  });

  it.each([
    ['CVSS:3.1/AV:N/AC:L/PR:L/UI:N/S:C/C:H/I:H/A:H', 9.9, 'CRITICAL'],
    ['CVSS:3.1/AV:N/AC:H/PR:H/UI:N/S:U/C:H/I:H/A:H', 6.6, 'MEDIUM'],
    ['CVSS:3.1/AV:L/AC:H/PR:L/UI:N/S:U/C:H/I:H/A:H', 7, 'HIGH'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N', 6.1, 'MEDIUM'],
    ['CVSS:3.0/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:H/A:H', 8.1, 'HIGH'],
    ['CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:N', 0, 'NONE'],
    ['CVSS:3.1/AV:P/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N/E:U/RL:O/RC:U', 1.6, 'LOW'],
  ])('%s → %s', (vector, score, severity) => {
    expect(parseCvssVector(vector)?.cvss).toMatchObject({ baseScore: score, baseSeverity: severity });
  });

  it('parses v2 (contract attackComplexity beside accessComplexity) and v4.0 (no score)', () => {
    expect(parseCvssVector('AV:N/AC:M/Au:S/C:C/I:C/A:C')).toEqual({
      key: 'cvssV2_0',
      cvss: {
        version: '2.0',
        vectorString: 'AV:N/AC:M/Au:S/C:C/I:C/A:C',
        accessVector: 'NETWORK',
        accessComplexity: 'MEDIUM',
        attackComplexity: 'MEDIUM',
        authentication: 'SINGLE',
        confidentialityImpact: 'COMPLETE',
        integrityImpact: 'COMPLETE',
        availabilityImpact: 'COMPLETE',
        baseScore: 8.5,
      },
    });
    const v4 = parseCvssVector('CVSS:4.0/AV:N/AC:L/AT:P/PR:L/UI:N/VC:L/VI:L/VA:L/SC:N/SI:N/SA:N/AU:Y/R:U');
    expect(v4?.key).toBe('cvssV4_0');
    expect(v4?.cvss).toMatchObject({
      attackRequirements: 'PRESENT',
      vulnConfidentialityImpact: 'LOW',
      subAvailabilityImpact: 'NONE',
      automatable: 'YES',
      recovery: 'USER',
    });
    expect(v4?.cvss.baseScore).toBeUndefined();
  });

  it.each([
    '',
    'CVSS:3.1/AV:N',
    'CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'CVSS:2.9/AV:N',
    'AV:N/AV:N/Au:N/C:P/I:P/A:P',
    'CVSS:3.1/AV:constructor/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
    'garbage',
  ])('rejects %j', (vector) => expect(parseCvssVector(vector)).toBeUndefined());

  it('keeps an unknown metric named like an Object.prototype member in the vector string only', () => {
    const vector = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/constructor:X';
    expect(parseCvssVector(vector)?.cvss).toMatchObject({ vectorString: vector, baseScore: 9.8 });
  });

  it('agrees with NVD on every v2/v3.x base score of the NVD samples', () => {
    let compared = 0;
    for (const file of fs.readdirSync(NVD_DIR)) {
      const cve = JSON.parse(fs.readFileSync(`${NVD_DIR}/${file}`, 'utf8'));
      for (const list of ['cvssMetricV2', 'cvssMetricV30', 'cvssMetricV31']) {
        for (const metric of cve.metrics[list] ?? []) {
          const parsed = parseCvssVector(metric.cvssData.vectorString);
          expect(parsed?.cvss.baseScore, `${file} ${metric.cvssData.vectorString}`).toBe(metric.cvssData.baseScore);
          if (list !== 'cvssMetricV2') expect(parsed?.cvss.baseSeverity).toBe(metric.cvssData.baseSeverity);
          compared++;
        }
      }
    }
    expect(compared).toBe(61);
  });

  it('severityOf bands', () => {
    expect([0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(severityOf)).toEqual([
      'NONE',
      'LOW',
      'LOW',
      'MEDIUM',
      'MEDIUM',
      'HIGH',
      'HIGH',
      'CRITICAL',
      'CRITICAL',
    ]);
  });
});
