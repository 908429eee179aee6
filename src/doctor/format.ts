// `dbrest doctor`'s output: a line per finding with its fix under it (problems first, then notes),
// and a summary; or the same as one JSON document with --json. Pure.
import type { ChalkInstance } from 'chalk';
import { isProblem, type Finding, type Level } from './findings.js';

export interface DoctorReport {
  /** Where doctor looked: the role it connected as, the database, the exposed schemas. */
  readonly role: string;
  readonly database: string;
  readonly schemas: ReadonlyArray<string>;
  readonly findings: ReadonlyArray<Finding>;
}

const ORDER: Record<Level, number> = { error: 0, warn: 1, info: 2 };

export function sortFindings(findings: ReadonlyArray<Finding>): Finding[] {
  return [...findings].sort((a, b) => ORDER[a.level] - ORDER[b.level] || (a.check < b.check ? -1 : a.check > b.check ? 1 : 0));
}

export function countByLevel(findings: ReadonlyArray<Finding>): Record<Level, number> {
  const n: Record<Level, number> = { error: 0, warn: 0, info: 0 };
  for (const f of findings) n[f.level]++;
  return n;
}

export function formatJson(report: DoctorReport): string {
  const findings = sortFindings(report.findings);
  return JSON.stringify({ role: report.role, database: report.database, schemas: report.schemas, summary: countByLevel(findings), findings }, null, 2) + '\n';
}

export function formatText(report: DoctorReport, chalk: ChalkInstance): string {
  const mark: Record<Level, string> = { error: chalk.red('✖ error'), warn: chalk.yellow('! warn '), info: chalk.cyan('i info ') };
  const lines = [chalk.dim(`dbrest doctor: database ${report.database} as ${report.role}, schemas ${report.schemas.join(', ')}`)];
  for (const f of sortFindings(report.findings)) {
    lines.push(`${mark[f.level]}  ${chalk.bold(f.check)}  ${f.message}`);
    lines.push(chalk.dim(`         fix: ${f.fix}`));
  }
  const n = countByLevel(report.findings);
  const problems = report.findings.filter(isProblem).length;
  const notes = n.info > 0 ? `, ${n.info} note${n.info === 1 ? '' : 's'}` : '';
  lines.push(problems === 0
    ? chalk.green(`✔ no problems found${notes}`)
    : chalk.red(`${problems} problem${problems === 1 ? '' : 's'} (${n.error} error${n.error === 1 ? '' : 's'}, ${n.warn} warning${n.warn === 1 ? '' : 's'})${notes}`));
  return lines.join('\n') + '\n';
}
