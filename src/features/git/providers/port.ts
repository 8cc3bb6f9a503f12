/** A file of a repository at one commit. */
export interface RepositoryFile {
  path: string;
  /** Bytes; null when the provider does not say (GitLab's tree API): the reader checks the text it gets. */
  size: number | null;
}

/**
 * What the service reads of a repository, whichever provider holds it (GitHub, GitLab): a branch's head commit, the
 * files under a folder at a commit, and one file's text. Adapters reach the provider through the outbound helper;
 * a failure is GIT_PROVIDER_FAILED, an unknown branch GIT_REF_NOT_FOUND.
 */
export interface RepositoryPort {
  branchHead(branch: string): Promise<string>;
  /** Every file under `dir` (recursively; `''` is the whole repository) at `sha`. */
  listFiles(sha: string, dir: string): Promise<RepositoryFile[]>;
  readFile(sha: string, path: string): Promise<string>;
}

/** How an adapter reaches its provider. */
export interface ProviderAccess {
  /** owner/name, or GitLab's group/…/name. */
  repository: string;
  /** The API's address; null: the provider's public service. */
  baseUrl: string | null;
  token: string;
  allowPrivate: boolean;
  timeoutMs: number;
}

/** Whether `path` lies under `dir` (`''`: the repository's root). */
export const isUnder = (path: string, dir: string) => dir === '' || path.startsWith(`${dir}/`);
