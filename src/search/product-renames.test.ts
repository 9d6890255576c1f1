import { describe, expect, it } from 'vitest';
import { ProductRenames } from './product-renames.js';

const renames = new ProductRenames([
  ['a:igor_sysoev:nginx', 'a:nginx:nginx'],
  ['a:nginx:nginx', 'a:f5:nginx'],
  ['a:microsoft:iis', 'a:microsoft:internet_information_services'],
  ['a:acme:asp\\.net_kit', 'a:acme:dotnet_kit'],
]);

describe('product renames as filter alternatives', () => {
  it.each([
    {
      rule: 'a vendor finds the products it made under their other names',
      vendor: 'nginx',
      product: undefined,
      expected: ['f5/nginx', 'igor_sysoev/nginx'],
    },
    {
      rule: 'the old vendor finds the new one',
      vendor: 'igor_sysoev',
      product: undefined,
      expected: ['f5/nginx', 'nginx/nginx'],
    },
    {
      rule: 'vendor and product: only that product',
      vendor: 'f5',
      product: 'nginx',
      expected: ['igor_sysoev/nginx', 'nginx/nginx'],
    },
    { rule: 'a vendor with other products keeps only the renamed one', vendor: 'f5', product: 'big-ip', expected: [] },
    {
      rule: 'a product renamed',
      vendor: undefined,
      product: 'iis',
      expected: ['microsoft/internet_information_services'],
    },
    {
      rule: 'a product under all vendors already matches its renames of vendor',
      vendor: undefined,
      product: 'nginx',
      expected: [],
    },
    {
      rule: 'quoted WFN values become filter values',
      vendor: undefined,
      product: 'dotnet_kit',
      expected: ['acme/asp.net_kit'],
    },
    { rule: 'no rename', vendor: 'apache', product: 'http_server', expected: [] },
    { rule: 'no filter', vendor: undefined, product: undefined, expected: [] },
  ])('$rule', ({ vendor, product, expected }) => {
    expect(renames.alternatives(vendor, product).map((pair) => `${pair.vendor}/${pair.product}`)).toEqual(expected);
  });
});
