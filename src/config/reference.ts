// The configuration reference table in README.md, generated from CONFIG_KEYS (a unit test checks
// the README holds exactly this text between its markers). Pure.
import { CONFIG_KEYS, describeType, envNames } from './keys.js';

export const REFERENCE_START = '<!-- config-reference:start (generated from src/config/keys.ts; npm test checks it) -->';
export const REFERENCE_END = '<!-- config-reference:end -->';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function defaultText(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return v.length === 0 ? '—' : `\`${v.join(',')}\``;
  if (typeof v === 'object') return Object.keys(v as object).length === 0 ? '—' : `\`${JSON.stringify(v)}\``;
  return `\`${String(v)}\``;
}

export function buildConfigReference(): string {
  const lines = ['| key | env | type | default | meaning |', '|---|---|---|---|---|'];
  for (const k of CONFIG_KEYS) {
    const env = envNames(k).dbrest[0] ?? '';
    const name = k.name === 'app.settings' || k.field === 'appSettings' ? 'app.settings.*' : k.name;
    lines.push(`| \`${name}\` | \`${env}\` | ${cell(describeType(k.type))} | ${cell(defaultText(k.default))} | ${cell(k.doc)}${k.origin === 'dbrest' ? ' *(dbrest)*' : ''} |`);
  }
  return [REFERENCE_START, ...lines, REFERENCE_END].join('\n');
}
