/**
 * Input format detection from the first bytes of a (decompressed) scan file:
 * `<` → nmap XML (masscan -oX too); `[` → JSON array, classified by its first element;
 * `{` → JSON records, classified by the first record (one line, or a pretty-printed object).
 */
import type { ScanFormat } from './types.js';
import { isObject, type JsonObject } from './values.js';

export function detectFormat(head: string): ScanFormat | undefined {
  const text = significantText(head);
  const first = text[0];
  if (first === '<') return 'nmap';
  if (first !== '[' && first !== '{') return undefined;
  const record = scanFirstObject(text, first === '[' ? 1 : 0);
  if (record.complete) return record.value ? classifyRecord(record.value) : 'ndjson';
  return guessFromKeyNames(text);
}

/** True once `head` holds enough to decide: a non-JSON start, or the whole first record. */
export function headIsDecisive(head: string): boolean {
  const text = significantText(head);
  if (text === '') return false;
  if (text[0] !== '[' && text[0] !== '{') return true;
  return scanFirstObject(text, text[0] === '[' ? 1 : 0).complete;
}

/** Which reader understands this record; Vulnscope NDJSON is the default. */
export function classifyRecord(record: JsonObject): ScanFormat {
  // Shodan downloads contain `"failed": true` placeholders; nothing else of ours does.
  if ('ip_str' in record || '_shodan' in record || record.failed === true) return 'shodan';
  if (Array.isArray(record.data) && record.data.some(isShodanBanner)) return 'shodan';
  if (Array.isArray(record.ports) && record.ports.some((p) => isObject(p) && 'port' in p)) return 'masscan';
  if ('rec_type' in record) return 'masscan';
  return 'ndjson';
}

const isShodanBanner = (value: unknown) =>
  isObject(value) && ('ip_str' in value || 'ip' in value || '_shodan' in value);

/** Fallback when the first record is bigger than the head: look for tell-tale key names. */
function guessFromKeyNames(text: string): ScanFormat {
  if (/"(?:ip_str|_shodan)"\s*:/.test(text)) return 'shodan';
  if (/"rec_type"\s*:/.test(text) || /"ports"\s*:\s*\[\s*\{/.test(text)) return 'masscan';
  return 'ndjson';
}

function significantText(head: string): string {
  return head.replace(/^\uFEFF/, '').trimStart();
}

type FirstObject = { complete: false } | { complete: true; value?: JsonObject };

/**
 * The first `{…}` value at or after `from` (after whitespace). Complete once its closing brace
 * is in `text` (value undefined if it is not valid JSON), or once something other than an
 * object starts there (an empty array, an array of numbers…).
 */
function scanFirstObject(text: string, from: number): FirstObject {
  let start = from;
  while (start < text.length && /\s/.test(text[start]!)) start++;
  if (start >= text.length) return { complete: false };
  if (text[start] !== '{') return { complete: true };
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) {
      return { complete: true, value: parseObject(text.slice(start, i + 1)) };
    }
  }
  return { complete: false };
}

function parseObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
