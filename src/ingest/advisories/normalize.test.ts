import { describe, expect, it } from 'vitest';
import { ADVISORY_SHAPES, type Shape } from './contract-shape.js';
import { contract, contractProblems } from '../../../test/support/contract.js';
import { conformObject, finalizeRecord, stripNulls, utcTimestamp, wrapCpeApplicability } from './normalize.js';
import { ConversionError, type JsonObject } from './types.js';

/** The contract's property types as Shapes, read from the OpenAPI document itself. */
function shapeFromContract(schema: JsonObject): Shape {
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/components/schemas/', '');
    return objectShape(contract().components.schemas[name] as JsonObject);
  }
  if (schema.type === 'array') return { kind: 'array', items: shapeFromContract(schema.items as JsonObject) };
  return schema.type as Shape;
}
function objectShape(schema: JsonObject): Shape {
  const props: Record<string, Shape> = {};
  for (const [key, value] of Object.entries(schema.properties as Record<string, JsonObject>))
    props[key] = shapeFromContract(value);
  return { kind: 'object', props };
}

const minimal = (cna: JsonObject = {}): JsonObject => ({
  dataType: 'CVE_RECORD',
  dataVersion: '5.1',
  cveMetadata: { cveId: 'CVE-2024-0001', state: 'PUBLISHED' },
  containers: { cna },
});

describe('contract shape', () => {
  it('transcribes every advisory.* schema of the contract exactly', () => {
    const names = Object.keys(contract().components.schemas).filter((n) => n.startsWith('advisory.'));
    expect(names.map((n) => n.slice('advisory.'.length)).sort()).toEqual(Object.keys(ADVISORY_SHAPES).sort());
    for (const name of names) {
      expect(ADVISORY_SHAPES[name.slice('advisory.'.length)], name).toEqual(
        objectShape(contract().components.schemas[name] as JsonObject),
      );
    }
  });
});

describe('conformObject', () => {
  it('moves members whose type conflicts to x_<name> beside them, recursively', () => {
    const cna: JsonObject = {
      source: { discovery: 'EXTERNAL' },
      title: 'kept',
      metrics: [{ cvssV3_1: { baseScore: '9.8', version: '3.1' } }],
      references: [{ url: 'https://a.example', tags: ['patch', 3] }],
      x_source: 'taken',
    };
    const record = minimal(cna);
    (record.cveMetadata as JsonObject).serial = '1';
    const moved = conformObject(record, ADVISORY_SHAPES.MitreCVEListV5Ref!);
    expect(moved.sort()).toEqual([
      '/containers/cna/metrics/0/cvssV3_1/baseScore',
      '/containers/cna/references/0/tags',
      '/containers/cna/source',
      '/cveMetadata/serial',
    ]);
    expect(cna.source).toBeUndefined();
    expect(cna.x_source).toBe('taken');
    expect(cna.x_source_2).toEqual({ discovery: 'EXTERNAL' });
    expect(cna.title).toBe('kept');
    expect(cna.metrics).toEqual([{ cvssV3_1: { x_baseScore: '9.8', version: '3.1' } }]);
    expect(cna.references).toEqual([{ url: 'https://a.example', x_tags: ['patch', 3] }]);
    expect((record.cveMetadata as JsonObject).x_serial).toBe('1');
    expect(contractProblems(record)).toEqual([]);
  });

  it('keeps an array<integer> source and moves a non-object array element list whole', () => {
    const cna: JsonObject = { source: [1, 2], affected: ['not an object'] };
    conformObject(cna, ADVISORY_SHAPES.MCna!);
    expect(cna).toEqual({ source: [1, 2], x_affected: ['not an object'] });
  });
});

describe('finalizeRecord', () => {
  it('sets dataType/dataVersion, keeps the source version and unknown top-level members as x_*', () => {
    const input = {
      ...minimal({ x_generator: { engine: 'e' } }),
      CNA_private: { owner: 'httpd', emailed: null },
      x_keep: 1,
    };
    const record = finalizeRecord(input);
    expect(record.dataType).toBe('CVE_RECORD');
    expect(record.dataVersion).toBe('5.0');
    expect(record.x_dataVersion).toBe('5.1');
    expect(record.x_CNA_private).toEqual({ owner: 'httpd' });
    expect(record.x_keep).toBe(1);
    expect('CNA_private' in record).toBe(false);
    expect(contractProblems(record)).toEqual([]);
  });

  it('omits x_dataVersion for 5.0 and appends Z to zone-less metadata timestamps', () => {
    const input = minimal();
    input.dataVersion = '5.0';
    Object.assign(input.cveMetadata as JsonObject, {
      dateReserved: '1999-06-07T00:00:00',
      dateUpdated: '2024-08-01T16:27:56.465Z',
    });
    const record = finalizeRecord(input);
    expect(record.x_dataVersion).toBeUndefined();
    expect(record.cveMetadata.dateReserved).toBe('1999-06-07T00:00:00Z');
    expect(record.cveMetadata.dateUpdated).toBe('2024-08-01T16:27:56.465Z');
  });

  it('wraps CVE 5.1 cpeApplicability in advisory.CustomCPE and adds contract CVSS names', () => {
    const applicability = {
      operator: 'AND',
      negate: false,
      nodes: [
        { operator: 'OR', negate: false, cpeMatch: [{ vulnerable: true, criteria: 'cpe:2.3:a:x:y:*:*:*:*:*:*:*:*' }] },
      ],
    };
    const record = finalizeRecord(
      minimal({
        cpeApplicability: [applicability, { mcpeapplicability: { operator: 'OR' } }],
        metrics: [
          {
            cvssV2_0: {
              version: '2.0',
              accessComplexity: 'LOW',
              baseScore: 5,
              vectorString: 'AV:N/AC:L/Au:N/C:P/I:N/A:N',
            },
          },
          {
            cvssV4_0: {
              version: '4.0',
              Automatable: 'YES',
              Recovery: 'USER',
              Safety: 'NEGLIGIBLE',
              baseScore: 9.3,
              vectorString: 'CVSS:4.0/…',
            },
          },
        ],
      }),
    );
    const cna = record.containers.cna;
    expect(cna.cpeApplicability).toEqual([
      { mcpeapplicability: applicability },
      { mcpeapplicability: { operator: 'OR' } },
    ]);
    const metrics = cna.metrics as JsonObject[];
    expect(metrics[0]!.cvssV2_0).toMatchObject({ accessComplexity: 'LOW', attackComplexity: 'LOW' });
    expect(metrics[1]!.cvssV4_0).toMatchObject({
      Automatable: 'YES',
      automatable: 'YES',
      recovery: 'USER',
      safety: 'NEGLIGIBLE',
    });
    expect(contractProblems(record)).toEqual([]);
  });

  it('rejects records without a CVE id, a CNA container or a state', () => {
    expect(() =>
      finalizeRecord({ cveMetadata: { cveId: 'GHSA-x', state: 'PUBLISHED' }, containers: { cna: {} } }),
    ).toThrow(ConversionError);
    expect(() =>
      finalizeRecord({ cveMetadata: { cveId: 'CVE-2024-0001', state: 'PUBLISHED' }, containers: {} }),
    ).toThrow(/containers.cna/);
    expect(() => finalizeRecord({ cveMetadata: { cveId: 'CVE-2024-0001' }, containers: { cna: {} } })).toThrow(/state/);
    expect(() => finalizeRecord({ containers: { cna: {} } })).toThrow(/cveMetadata/);
  });
});

describe('helpers', () => {
  it('stripNulls removes null members and elements everywhere', () => {
    expect(stripNulls({ a: null, b: [1, null, { c: null, d: 2 }], e: { f: null } })).toEqual({
      b: [1, { d: 2 }],
      e: {},
    });
  });
  it('utcTimestamp', () => {
    expect(utcTimestamp('2021-12-28T20:15:08.400')).toBe('2021-12-28T20:15:08.400Z');
    expect(utcTimestamp('2025-08-25')).toBe('2025-08-25T00:00:00Z');
    expect(utcTimestamp('2025-08-25T17:04:19.9796Z')).toBe('2025-08-25T17:04:19.9796Z');
    expect(utcTimestamp('2024-01-01T00:00:00+02:00')).toBe('2024-01-01T00:00:00+02:00');
  });
  it('wrapCpeApplicability leaves a container without it alone', () => {
    const container: JsonObject = { title: 't' };
    wrapCpeApplicability(container);
    expect(container).toEqual({ title: 't' });
  });
});
