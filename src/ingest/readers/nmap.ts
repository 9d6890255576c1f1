/**
 * nmap XML (`-oX`; also masscan `-oX`, which imitates it), parsed incrementally with saxes: one
 * `<host>` is held at a time and turned into observations when it closes.
 */
import { StringDecoder } from 'node:string_decoder';
import { SaxesParser } from 'saxes';
import type { ReadItem } from '../../core/observation.js';
import {
  newHost,
  observationsFromHost,
  type NmapHost,
  type NmapOsGuess,
  type NmapPort,
  type NmapRun,
} from './nmap-host.js';
import { cvesFromScript, emptyTable, type NmapScript, type ScriptTable } from './nmap-scripts.js';
import { rejected } from './types.js';
import { unique } from './values.js';

export async function* readNmapXml(input: NodeJS.ReadableStream, file: string): AsyncGenerator<ReadItem> {
  const document = new NmapDocument(file);
  const parser = new SaxesParser({ position: true });
  let xmlError: string | undefined;
  parser.on('error', (error) => {
    xmlError ??= describeXmlError(error.message);
  });
  parser.on('opentagstart', () => document.tagStartsAt(parser.line));
  parser.on('opentag', (tag) => document.open(tag.name, tag.attributes as Record<string, string>));
  parser.on('text', (text) => document.text(text));
  parser.on('cdata', (text) => document.text(text));
  parser.on('closetag', (tag) => document.close(tag.name));

  const failure = (): string | undefined => document.failure ?? (xmlError && `invalid XML: ${xmlError}`);
  const failureAt = () => ({ file, line: document.currentHostLine ?? parser.line });

  const decoder = new StringDecoder('utf8');
  let atStart = true;
  for await (const chunk of input) {
    let text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
    if (atStart && text !== '') {
      text = text.replace(/^\uFEFF/, '');
      atStart = false;
    }
    parser.write(text);
    yield* document.takeItems();
    const reason = failure();
    if (reason) {
      yield rejected(failureAt(), `${reason}; the rest of the file was not read`);
      return;
    }
  }
  parser.write(decoder.end());
  const unfinishedHost = document.currentHostLine;
  const unfinishedDocument = document.isOpen && !failure();
  parser.close();
  yield* document.takeItems();
  if (unfinishedHost !== undefined) {
    yield rejected(
      { file, line: unfinishedHost },
      `input ended inside the <host> that starts on line ${unfinishedHost} (truncated scan?); its ports were not read`,
    );
    return;
  }
  if (unfinishedDocument) {
    yield rejected({ file, line: parser.line }, 'input ended before </nmaprun> (scan still running or truncated?)');
    return;
  }
  const reason = failure();
  if (reason) yield rejected(failureAt(), reason);
}

/** saxes says `2:0: text data outside of root node.`; we say where in words. */
function describeXmlError(message: string): string {
  const match = /^(?:[^:]*:)?(\d+):(\d+): (.*?)\.?$/s.exec(message);
  return match ? `${match[3]} (line ${match[1]}, column ${Number(match[2]) + 1})` : message;
}

interface OpenScript {
  script: NmapScript;
  tables: ScriptTable[];
  owner: 'port' | 'host';
}

/** Element-by-element state of one nmap document; completed hosts become items. */
class NmapDocument {
  failure?: string;
  private items: ReadItem[] = [];
  private run: NmapRun = {};
  private stack: string[] = [];
  private tagLine = 1;
  private host?: NmapHost;
  private port?: NmapPort;
  /** Where a `<cpe>` inside `<os>` belongs: the enclosing osmatch, or an old-style osclass. */
  private osGuess?: NmapOsGuess;
  private script?: OpenScript;
  private elemKey?: string;
  /** Text being collected for the open `<cpe>` or `<elem>`; undefined when not collecting. */
  private buffer?: string;

  constructor(private readonly file: string) {}

  /** Inside the root element: `</nmaprun>` not seen yet. */
  get isOpen(): boolean {
    return this.stack.length > 0;
  }

  get currentHostLine(): number | undefined {
    return this.host?.line;
  }

  takeItems(): ReadItem[] {
    const items = this.items;
    this.items = [];
    return items;
  }

  tagStartsAt(line: number): void {
    this.tagLine = line;
  }

  text(text: string): void {
    if (this.buffer !== undefined) this.buffer += text;
  }

  open(name: string, attributes: Record<string, string>): void {
    const parent = this.stack.at(-1);
    this.stack.push(name);
    if (parent === undefined) {
      if (name === 'nmaprun') this.run = { start: attributes.start };
      else this.failure = `not an nmap XML report: the root element is <${name}>, not <nmaprun>`;
      return;
    }
    if (this.script) {
      this.openInScript(name, attributes);
      return;
    }
    const { host, port } = this;
    switch (name) {
      case 'host':
        if (parent === 'nmaprun') this.host = newHost(this.tagLine, attributes);
        break;
      case 'status':
        if (host && parent === 'host') host.status = attributes.state;
        break;
      case 'address':
        // An <address> without `addr` names nothing: it is skipped, not taken as the host's address.
        if (host && parent === 'host' && attributes.addr !== undefined) {
          host.addresses.push({ addr: attributes.addr, addrtype: attributes.addrtype ?? 'ipv4' });
        }
        break;
      case 'hostname':
        if (host && parent === 'hostnames' && attributes.name !== undefined) {
          host.hostnames.push({ name: attributes.name, type: attributes.type });
        }
        break;
      case 'port':
        if (host && parent === 'ports') {
          this.port = { line: this.tagLine, protocol: attributes.protocol, portid: attributes.portid, cves: [] };
          host.ports.push(this.port);
        }
        break;
      case 'state':
        if (port && parent === 'port') port.state = attributes.state;
        break;
      case 'service':
        if (port && parent === 'port') port.service = { attributes, cpes: [] };
        break;
      case 'osmatch':
        if (host && parent === 'os') {
          this.osGuess = { accuracy: Number(attributes.accuracy) || 0, cpes: [] };
          host.osMatches.push(this.osGuess);
        }
        break;
      case 'osclass':
        if (host && parent === 'os') {
          this.osGuess = { accuracy: Number(attributes.accuracy) || 0, cpes: [] };
          host.osClasses.push(this.osGuess);
        }
        break;
      case 'cpe':
        this.buffer = '';
        break;
      case 'script':
        if ((port && parent === 'port') || (host && parent === 'hostscript')) {
          const script = { id: attributes.id ?? '', output: attributes.output ?? '', root: emptyTable() };
          this.script = { script, tables: [script.root], owner: parent === 'port' ? 'port' : 'host' };
        }
        break;
    }
  }

  private openInScript(name: string, attributes: Record<string, string>): void {
    const tables = this.script!.tables;
    if (name === 'table') {
      const table = emptyTable(attributes.key);
      tables.at(-1)!.tables.push(table);
      tables.push(table);
    } else if (name === 'elem') {
      this.elemKey = attributes.key;
      this.buffer = '';
    }
  }

  close(name: string): void {
    this.stack.pop();
    const parent = this.stack.at(-1);
    switch (name) {
      case 'cpe':
        this.closeCpe(parent, (this.buffer ?? '').trim());
        this.buffer = undefined;
        break;
      case 'elem':
        if (this.script && this.buffer !== undefined) {
          this.script.tables.at(-1)!.elems.push({ key: this.elemKey, text: this.buffer });
        }
        this.buffer = undefined;
        break;
      case 'table':
        if (this.script && this.script.tables.length > 1) this.script.tables.pop();
        break;
      case 'script':
        this.closeScript();
        break;
      case 'osmatch':
        this.osGuess = undefined;
        break;
      case 'osclass':
        if (parent === 'os') this.osGuess = undefined;
        break;
      case 'port':
        this.port = undefined;
        break;
      case 'host':
        if (this.host && parent === 'nmaprun') {
          this.items.push(...observationsFromHost(this.host, this.run, this.file));
          this.host = undefined;
        }
        break;
    }
  }

  private closeCpe(parent: string | undefined, cpe: string): void {
    if (cpe === '') return;
    if (parent === 'service') this.port?.service?.cpes.push(cpe);
    else if (parent === 'osclass') this.osGuess?.cpes.push(cpe);
  }

  private closeScript(): void {
    const open = this.script;
    this.script = undefined;
    if (!open) return;
    const cves = cvesFromScript(open.script);
    if (cves.length === 0) return;
    if (open.owner === 'port' && this.port) this.port.cves = unique([...this.port.cves, ...cves]);
    else this.host?.hostScriptCves.push({ scriptId: open.script.id, cves });
  }
}
