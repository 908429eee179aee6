// The pipeline's pure stages stay pure: request/, plan/, sql/, response/ (and typegen/) never import pg,
// node:http or the HTTP/database edges, and never read the clock; and earlier stages never import
// later ones (request/ knows nothing of plan/). A grep, so a violation fails here, not in review.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const PURE = ['request', 'plan', 'sql', 'response', 'typegen'];
const FORBIDDEN_EVERYWHERE = [/from 'pg'/, /from 'node:http'/, /from '\.\.\/(\.\.\/)?(http|db|cli|embedded)\//, /performance\.now\(|Date\.now\(/];
const LATER: Record<string, RegExp> = {
  request: /from '\.\.\/(\.\.\/)?(plan|sql|response)\//,
  // plan/ may use the Sql value type itself (a call's FROM is planned as a fragment), nothing else of sql/.
  plan: /from '\.\.\/(\.\.\/)?(sql\/(?!fragment\.js)|response\/)/,
};

for (const stage of PURE) {
  t.test(`src/${stage} is pure`, async (t) => {
    const offenders: string[] = [];
    for (const file of files(path.join('src', stage))) {
      const text = readFileSync(file, 'utf8');
      for (const re of [...FORBIDDEN_EVERYWHERE, ...(LATER[stage] ? [LATER[stage]!] : [])]) {
        if (re.test(text)) offenders.push(`${file}: ${re}`);
      }
    }
    t.same(offenders, []);
  });
}
