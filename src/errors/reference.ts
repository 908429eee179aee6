// The table of error codes in README.md, generated from the catalog (a unit test checks the README
// holds exactly this text between its markers), like the configuration reference. Pure.
import { errors } from './catalog.js';

export const ERRORS_START = '<!-- error-codes:start (generated from src/errors/catalog.ts; npm test checks it) -->';
export const ERRORS_END = '<!-- error-codes:end -->';

export function buildErrorReference(): string {
  const lines = ['| code | HTTP status | raised when |', '|---|---|---|'];
  for (const [code, make] of Object.entries(errors)) {
    lines.push(`| \`${code}\` | ${make.status} | ${make.summary.replace(/\|/g, '\\|')} |`);
  }
  return [ERRORS_START, ...lines, ERRORS_END].join('\n');
}
