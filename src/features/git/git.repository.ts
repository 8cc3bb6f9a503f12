import type { AppDeps } from '../../deps.ts';
import { integrationOf } from './git.commands.ts';
import { GitIntentsInvalid, GitTokenMissing } from './git.errors.ts';
import {
  INTENT_LIMITS,
  isIntentFile,
  isManifestFile,
  MANIFEST_FILE_BYTES,
  parseIntentFile,
  parseManifestFile,
  type IntentProblem,
  type ItemIntent,
  type PageIntent,
} from './git.intents.ts';
import { currentToken } from './git.oauth.ts';
import { repositoryOf, type RepositoryPort } from './providers/index.ts';

/** The repository of an integration, reached with its token. */
export async function repositoryFor(deps: AppDeps, siteId: string, integrationId: string) {
  const integration = await integrationOf(deps, siteId, integrationId);
  const token = await currentToken(deps, siteId, integration);
  if (token === null) throw new GitTokenMissing({ integrationId });
  const port = repositoryOf(integration.provider, {
    repository: integration.repository,
    baseUrl: integration.baseUrl,
    token,
    allowPrivate: deps.config.SVC_GIT_ALLOW_PRIVATE,
    timeoutMs: deps.config.SVC_GIT_TIMEOUT_MS,
  });
  return { integration, port };
}

/**
 * Every intent under the folder at the commit. A file that cannot be read as intents, too many files or intents,
 * or one item declared twice refuse the whole sync (422 GIT_INTENTS_INVALID, every file's problem listed): a
 * half-read repository is no state anyone committed, so nothing is applied.
 */
export async function readIntents(
  port: RepositoryPort,
  sha: string,
  dir: string,
): Promise<{ items: ItemIntent[]; pages: PageIntent[]; manifest: { path: string; body: unknown } | null }> {
  const listed = (await port.listFiles(sha, dir)).filter((f) => isIntentFile(f.path));
  const manifests = listed.filter((f) => isManifestFile(f.path, dir));
  const files = listed.filter((f) => !isManifestFile(f.path, dir));
  const problems: IntentProblem[] = [];
  if (files.length > INTENT_LIMITS.files)
    throw new GitIntentsInvalid({
      files: [{ path: dir, problem: `more than ${String(INTENT_LIMITS.files)} intent files` }],
    });
  let manifest: { path: string; body: unknown } | null = null;
  if (manifests.length > 1)
    problems.push({ path: manifests[1]!.path, problem: `a second manifest beside ${manifests[0]!.path}` });
  else if (manifests.length === 1) {
    const f = manifests[0]!;
    const read =
      f.size !== null && f.size > MANIFEST_FILE_BYTES
        ? { path: f.path, problem: `larger than ${String(MANIFEST_FILE_BYTES)} bytes` }
        : parseManifestFile(f.path, await port.readFile(sha, f.path));
    if ('problem' in read) problems.push(read);
    else manifest = { path: f.path, body: read.manifest };
  }
  const items: ItemIntent[] = [];
  const pages: PageIntent[] = [];
  for (const f of files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    // Known before reading when the provider gives sizes; `parseIntentFile` checks the text read either way.
    if (f.size !== null && f.size > INTENT_LIMITS.fileBytes) {
      problems.push({ path: f.path, problem: `larger than ${String(INTENT_LIMITS.fileBytes)} bytes` });
      continue;
    }
    const read = parseIntentFile(f.path, await port.readFile(sha, f.path));
    if ('problem' in read) problems.push(read);
    else {
      items.push(...read.intents);
      pages.push(...read.pages);
    }
  }
  const seen = new Map<string, string>();
  const declaredOnce = (key: string, path: string) => {
    const first = seen.get(key);
    if (first !== undefined) problems.push({ path, problem: `${key} is also declared in ${first}` });
    else seen.set(key, path);
  };
  for (const i of items) declaredOnce(`${i.collection}/${String(i.id)}`, i.path);
  for (const p of pages) declaredOnce(`page ${p.slug}`, p.path);
  if (items.length + pages.length > INTENT_LIMITS.intents)
    problems.push({ path: dir, problem: `more than ${String(INTENT_LIMITS.intents)} intents` });
  if (problems.length) throw new GitIntentsInvalid({ files: problems });
  return { items, pages, manifest };
}
