import { describe, expect, it } from 'vitest';
import { splitCsvLine } from './csv.js';

describe('splitCsvLine', () => {
  it.each([
    ['a,b,c', ['a', 'b', 'c']],
    ['', ['']],
    ['a,,', ['a', '', '']],
    [',a', ['', 'a']],
    ['1.2.3.4,Cobalt Strike C2 IPs,data/x.txt\r', ['1.2.3.4', 'Cobalt Strike C2 IPs', 'data/x.txt']],
    ['"a, b",c', ['a, b', 'c']],
    ['"say ""hi""",x', ['say "hi"', 'x']],
    ['""', ['']],
    ['x,"",y', ['x', '', 'y']],
    ['x,"quoted"', ['x', 'quoted']],
    [' a , b ', [' a ', ' b ']],
    ['a"b,c', ['a"b', 'c']],
  ])('%j', (line, fields) => {
    expect(splitCsvLine(line)).toEqual(fields);
  });

  it('splits on another separator', () => {
    expect(splitCsvLine('tag\t"c2:x"', '\t')).toEqual(['tag', 'c2:x']);
  });

  it('rejects an unterminated quote', () => {
    expect(() => splitCsvLine('"abc,def')).toThrow(/unterminated quoted field starting at column 1/);
  });

  it('rejects text after a closing quote', () => {
    expect(() => splitCsvLine('"abc"def,x')).toThrow(/after a closing quote at column 6/);
  });
});
