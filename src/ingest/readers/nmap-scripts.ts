/**
 * CVE ids reported by NSE scripts: the vulners script (tables of `{id, type}` per CPE, or only
 * its text output in old versions) and every script built on nmap's vulns library (tables with
 * a `state` of VULNERABLE or LIKELY VULNERABLE and an `ids` table of `CVE:CVE-…`).
 */
import { cvesInText, normaliseCves, unique } from './values.js';

/** The structured part of a `<script>`: nested `<table key>`s holding `<elem key>`s. */
export interface ScriptTable {
  key?: string;
  elems: { key?: string; text: string }[];
  tables: ScriptTable[];
}

export interface NmapScript {
  id: string;
  output: string;
  root: ScriptTable;
}

export const emptyTable = (key?: string): ScriptTable => ({ key, elems: [], tables: [] });

export function cvesFromScript(script: NmapScript): string[] {
  const fromVulnsLibrary = vulnerableTables(script.root).flatMap(cvesOfVulnerability);
  const fromVulners = script.id === 'vulners' ? cvesFromVulners(script) : [];
  return unique([...fromVulners, ...fromVulnsLibrary]);
}

function cvesFromVulners(script: NmapScript): string[] {
  const hasTables = script.root.tables.length > 0;
  if (!hasTables) return cvesInText(script.output);
  const ids = allTables(script.root)
    .filter((table) => elemText(table, 'type')?.toLowerCase() === 'cve')
    .map((table) => elemText(table, 'id'));
  return normaliseCves(ids, 'lenient');
}

const VULNERABLE_STATE = /^(LIKELY )?VULNERABLE\b/i;

function vulnerableTables(table: ScriptTable): ScriptTable[] {
  const state = elemText(table, 'state');
  if (state !== undefined && VULNERABLE_STATE.test(state.trim())) return [table];
  return table.tables.flatMap(vulnerableTables);
}

function cvesOfVulnerability(table: ScriptTable): string[] {
  const ids = table.tables
    .filter((child) => child.key === 'ids')
    .flatMap((child) => child.elems.map((elem) => elem.text.replace(/^CVE:/i, '')));
  return normaliseCves([table.key, ...ids], 'lenient');
}

function allTables(table: ScriptTable): ScriptTable[] {
  return [table, ...table.tables.flatMap(allTables)];
}

function elemText(table: ScriptTable, key: string): string | undefined {
  return table.elems.find((elem) => elem.key === key)?.text;
}
