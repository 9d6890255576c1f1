import { describe, expect, it } from 'vitest';
import { TargetIntelQuery } from '../../../core/api/index.js';
import { TARGET_INTEL_PARAMETERS } from './parameters.js';

describe('the parameters served in _meta.parameters', () => {
  it('are the ones the endpoint declares, but the token and the display switches of the official clients', () => {
    const declared = Object.keys(TargetIntelQuery.properties).filter(
      (name) => !['token', 'show_pages', 'show_query'].includes(name),
    );
    expect(TARGET_INTEL_PARAMETERS.map((p) => p.name).sort()).toEqual(declared.sort());
  });
});
