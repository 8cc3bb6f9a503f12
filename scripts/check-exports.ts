import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Keeps each slice's surface small: `src/features/<area>/index.ts` exports the slice's manifest and the few names other
 * slices use (STYLE.md: the manifest and about ten named exports). Counts every exported name, types included, and
 * exits non-zero listing each slice that exports more than LIMIT. Records and helpers several slices share belong to
 * src/contracts/<area>/; functions other slices always call together can be one named object.
 */
const LIMIT = 12;

/** Slices whose index may stay over the limit (none). */
const ALLOWED = new Set<string>([]);

const root = path.resolve(import.meta.dirname, '..');
const featuresDir = path.join(root, 'src', 'features');

/** The file a relative module specifier names (`./x.ts`, `./x.js` written for `./x.ts`, or a folder's index.ts). */
function resolveModule(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')];
  const found = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  if (!specifier.startsWith('.') || !found) throw new Error(`${path.relative(root, from)}: cannot follow ${specifier}`);
  return found;
}

const hasExport = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const isDefault = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

function bindingNames(name: ts.BindingName, out: Set<string>): void {
  if (ts.isIdentifier(name)) out.add(name.text);
  else for (const e of name.elements) if (!ts.isOmittedExpression(e)) bindingNames(e.name, out);
}

/** The names a module exports (`export *` followed into the module it names, which exports no default through it). */
function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(file)) return out;
  seen.add(file);
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  for (const node of source.statements) {
    if (ts.isExportDeclaration(node)) {
      if (node.exportClause && ts.isNamedExports(node.exportClause))
        for (const e of node.exportClause.elements) out.add(e.name.text);
      else if (node.exportClause) out.add(node.exportClause.name.text);
      else if (node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        const target = resolveModule(file, node.moduleSpecifier.text);
        for (const name of exportedNames(target, seen)) if (name !== 'default') out.add(name);
      }
    } else if (ts.isExportAssignment(node)) out.add(node.isExportEquals ? 'export=' : 'default');
    else if (!hasExport(node)) continue;
    else if (ts.isVariableStatement(node)) for (const d of node.declarationList.declarations) bindingNames(d.name, out);
    else if (isDefault(node)) out.add('default');
    else if (
      (ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isInterfaceDeclaration(node) ||
        ts.isTypeAliasDeclaration(node) ||
        ts.isEnumDeclaration(node) ||
        ts.isModuleDeclaration(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    )
      out.add(node.name.text);
  }
  return out;
}

const slices = fs
  .readdirSync(featuresDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && fs.existsSync(path.join(featuresDir, d.name, 'index.ts')))
  .map((d) => d.name)
  .sort();
const offenders = slices
  .filter((area) => !ALLOWED.has(area))
  .map((area) => ({ area, names: [...exportedNames(path.join(featuresDir, area, 'index.ts'))] }))
  .filter((s) => s.names.length > LIMIT);

if (offenders.length > 0) {
  for (const { area, names } of offenders)
    console.error(
      `src/features/${area}/index.ts exports ${names.length} names (at most ${LIMIT}): ${names.join(', ')}`,
    );
  console.error(
    'Export the manifest and what other slices use; shared records and helpers go to src/contracts/<area>/.',
  );
  process.exit(1);
}
console.log(`✔ ${slices.length} slices export at most ${LIMIT} names each`);
